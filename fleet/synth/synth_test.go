package synth

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

// readTree returns every file under dir by its relative path.
func readTree(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

// The same Config writes the same bytes; another seed writes other logs.
func TestDeterministic(t *testing.T) {
	cfg := Config{Robots: 6, Days: 3, Seed: 7, Models: DefaultModels}
	a, b, c := t.TempDir(), t.TempDir(), t.TempDir()
	if _, err := Write(a, cfg); err != nil {
		t.Fatal(err)
	}
	if _, err := Write(b, cfg); err != nil {
		t.Fatal(err)
	}
	cfg.Seed = 8
	if _, err := Write(c, cfg); err != nil {
		t.Fatal(err)
	}
	fa, fb, fc := readTree(t, a), readTree(t, b), readTree(t, c)
	if len(fa) != 1+6+6*3 {
		t.Fatalf("%d files, want a manifest, 6 init files and 18 logs", len(fa))
	}
	same := 0
	for p, x := range fa {
		if !bytes.Equal(x, fb[p]) {
			t.Errorf("%s differs between two runs of the same Config", p)
		}
		if bytes.Equal(x, fc[p]) && filepath.Ext(p) == ".csv" && filepath.Base(p) == "log.csv" && len(x) > 0 {
			same++
		}
	}
	if same > 0 {
		t.Errorf("%d logs are the same under another seed", same)
	}
	// every robot-day's log is its own
	seen := map[string]string{}
	for p, x := range fa {
		if filepath.Base(p) != "log.csv" || len(x) == 0 {
			continue
		}
		if q, ok := seen[string(x)]; ok {
			t.Errorf("%s and %s are the same log", p, q)
		}
		seen[string(x)] = p
	}
}
