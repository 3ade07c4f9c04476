package dataset

import "testing"

// A trajectory's summary counts its rows and traj runs, and reads its
// last row as numbers (null where not finite) and text.
func TestSummarizeTrajectory(t *testing.T) {
	s, err := SummarizeTrajectory([]byte("t,x,traj\n0,1,a\n1,2,a\n0,3,b\n1,NaN,b\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Rows != 4 || s.Runs != 2 || len(s.Columns) != 3 || s.Final["t"] != 1.0 || s.Final["x"] != nil || s.Final["traj"] != "b" {
		t.Errorf("%+v", s)
	}
	if s, err = SummarizeTrajectory([]byte("t,x\n0,1\n")); err != nil || s.Runs != 1 || s.Final["x"] != 1.0 {
		t.Errorf("%+v, %v", s, err)
	}
	if _, err := SummarizeTrajectory(nil); err == nil {
		t.Error("an empty CSV summed up")
	}
}
