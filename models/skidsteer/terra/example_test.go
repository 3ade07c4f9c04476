package terra_test

import (
	"fmt"

	"github.com/wheelgrad/wheelgrad/models/skidsteer/terra"
)

// The torques of a 2-m CCW turn at 0.6 m/s on asphalt (Ordonez et al.'s
// mapped surface, Table 2's slip coefficients), their sensitivity to the
// outer friction, and the minimum turn radius.
func ExampleModel_Torques() {
	m := terra.Model{Vehicle: terra.FSUBot, Surface: terra.Asphalt,
		A: [9]float64{15e-3, -0.4e-3, -10e-3, 7e-3, 15e-3, -7e-3, 5e-3, -405e-3, 119e-3}}
	r, err := m.Torques(terra.Command{Vc: 0.6, Wc: 0.3})
	if err != nil {
		panic(err)
	}
	mtr, _ := m.MTR(0.6)
	fmt.Printf("tau_i %.2f N·m, tau_o %.2f N·m, dtau_o/dmu_o %.2f N·m, inner skids %v\n", r.TauI, r.TauO, r.DTauO[0], r.InnerSkids)
	fmt.Printf("MTR %.2f m\n", mtr)
	// Output:
	// tau_i -0.90 N·m, tau_o 2.56 N·m, dtau_o/dmu_o 1.73 N·m, inner skids true
	// MTR 0.72 m
}
