package robots

// The built-in models, one adapter each (this file names them; each
// adapter's file, robots/<model>.go, says what it can do).

// Default returns a new registry of the built-in models: mecanum, diffdrive,
// skidsteer, pioneer and tire, in that order.
func Default() *Registry {
	r, err := NewRegistry(Mecanum{}, DiffDrive{}, SkidSteer{}, Pioneer{}, Tire{})
	if err != nil {
		panic(err) // the built-in names are distinct
	}
	return r
}

// Mecanum is the adapter of models/mecanum (Luo, Boularias and Aanjaneya).
type Mecanum struct{}

// Name is "mecanum".
func (Mecanum) Name() string { return "mecanum" }

// Summary describes the model in one line.
func (Mecanum) Summary() string {
	return "four-wheel Mecanum robot with steady-state wheel friction mu1..mu4 (Luo et al.)"
}

// DiffDrive is the adapter of models/diffdrive (Park, Lee and Kuipers).
type DiffDrive struct{}

// Name is "diffdrive".
func (DiffDrive) Name() string { return "diffdrive" }

// Summary describes the model in one line.
func (DiffDrive) Summary() string {
	return "differential drive with Kikuuwe friction, discrete time (Park et al.)"
}

// SkidSteer is the adapter of models/skidsteer (Ordonez et al.).
type SkidSteer struct{}

// Name is "skidsteer".
func (SkidSteer) Name() string { return "skidsteer" }

// Summary describes the model in one line.
func (SkidSteer) Summary() string {
	return "skid-steer slip kinematics a11..a32 (Ordonez et al.)"
}

// Pioneer is the adapter of models/pioneer (Ivanjko et al.).
type Pioneer struct{}

// Name is "pioneer".
func (Pioneer) Name() string { return "pioneer" }

// Summary describes the model in one line.
func (Pioneer) Summary() string {
	return "Pioneer 3DX physical and experimental dynamics (Ivanjko et al.)"
}

// Tire is the adapter of models/tire (Westerhout et al.).
type Tire struct{}

// Name is "tire".
func (Tire) Name() string { return "tire" }

// Summary describes the model in one line.
func (Tire) Summary() string {
	return "Jackal-class robot with Dugoff or Pacejka tyres (Westerhout et al.)"
}
