package tire

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeLog(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "log.csv")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestReadLog(t *testing.T) {
	path := writeLog(t, "t,wl,wr,x,y,psi,traj\n0,1,1,0,0,0,a\n0.01,1,1,,,,a\n0,2,2,1,1,1,b\n0.01,2,2,1.1,1,1,b\n")
	runs, err := ReadLog(path, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 2 || runs[1].ID != "b" || runs[1].Row != 2 || runs[0].U != nil {
		t.Fatalf("runs %+v", runs)
	}
	if !math.IsNaN(runs[0].X[1]) || runs[1].X[1] != 1.1 {
		t.Errorf("poses: run a %v, run b %v", runs[0].X, runs[1].X)
	}
	// Simulate's row errors come back positioned: row 1 of run b is line 5
	runs[1].T[1] = runs[1].T[0] + 1e-4 // less than one step dt
	_, err = Simulate(Jackal(), &runs[1])
	if err = runs[1].Err(err); err == nil || !strings.Contains(err.Error(), `line 5, column "t"`) {
		t.Errorf("positioned error: %v", err)
	}
}

func TestReadLogErrors(t *testing.T) {
	for name, c := range map[string]struct{ text, want string }{
		"group column": {"t,wl,wr,u,v\n0,1,1,0,0\n", `column "r": missing column "r" (u, v, r go together)`},
		"group row":    {"t,wl,wr,x,y,psi\n0,1,1,0,0,0\n0.01,1,1,0,,0\n", `line 3, column "y": empty cell: x, y, psi go together on a row`},
		"wheel cell":   {"t,wl,wr\n0,1,1\n0.01,1,x\n", `line 3, column "wr"`},
	} {
		path := writeLog(t, c.text)
		_, err := ReadLog(path, LogOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.HasPrefix(err.Error(), path) {
			t.Errorf("%s: err = %v, want %s: ... %s", name, err, path, c.want)
		}
	}
}

func TestReadParams(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.json")
	if err := os.WriteFile(path, []byte(`{"model": "tire", "mu": 0.6}`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, _, err := ReadParams(path)
	if err != nil || p.Mu != 0.6 || p.Kx != Jackal().Kx {
		t.Fatalf("p %+v, err %v; want mu 0.6 over the Jackal defaults", p, err)
	}
	if err := os.WriteFile(path, []byte(`{"model": "tire", "tyre": "magic"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := ReadParams(path); err == nil || !strings.HasPrefix(err.Error(), path+": ") || !strings.Contains(err.Error(), "tyre") {
		t.Errorf("bad tyre: err = %v", err)
	}
}
