package terra

import "testing"

func BenchmarkTorques(b *testing.B) {
	m := testModel(Asphalt)
	for b.Loop() {
		if _, err := m.Torques(Command{Vc: 0.6, Wc: 0.17}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTorquesValue(b *testing.B) {
	m := testModel(Asphalt)
	for b.Loop() {
		if _, err := m.TorquesValue(Command{Vc: 0.6, Wc: 0.17}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMapping is eq. 24: the surface reproducing 8 network torque pairs
// at 0.6 m/s (here the asphalt model's own torques), from vinyl.
func BenchmarkMapping(b *testing.B) {
	truth := testModel(Asphalt)
	var data []Sample
	for _, w := range MappingCommands {
		c := Command{Vc: 0.6, Wc: w}
		r, _ := truth.TorquesValue(c)
		data = append(data, Sample{Cmd: c, TauI: r.TauI, TauO: r.TauO})
	}
	for b.Loop() {
		if _, _, err := Fit(testModel(Vinyl), data); err != nil {
			b.Fatal(err)
		}
	}
}
