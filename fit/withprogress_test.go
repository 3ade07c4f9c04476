package fit

import (
	"testing"

	"github.com/wheelgrad/wheelgrad/opt"
)

func TestWithProgress(t *testing.T) {
	var seen []int
	o := Settings{MaxIter: 7, Tol: 1e-4}.WithProgress(func(iter int, loss float64) { seen = append(seen, iter) })
	if o.MaxIterations != 7 || o.FunctionTol != 1e-4 || o.Callback == nil {
		t.Fatalf("settings %+v", o)
	}
	if !o.Callback(opt.Iteration{Iter: 3, F: 1}) || len(seen) != 1 || seen[0] != 3 {
		t.Errorf("callback passed %v", seen)
	}
	if (Settings{}).WithProgress(nil).Callback != nil {
		t.Error("a nil progress gave a callback")
	}
}
