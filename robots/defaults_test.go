package robots

import (
	"errors"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/fit"
)

func TestDefaultOptions(t *testing.T) {
	got := DefaultOptions(SkidSteer{})
	if got["inputs"] != "measured" || got["dead-time"] != "false" || len(got) != len(SkidSteer{}.Options()) {
		t.Fatalf("skidsteer defaults %v", got)
	}
	if got := DefaultOptions(DiffDrive{}); got["cw"] != "1" {
		t.Fatalf("diffdrive defaults %v", got)
	}
}

func TestIdentifiedFailure(t *testing.T) {
	refused, failed := errors.New("refused"), errors.New("blew up")
	for _, c := range []struct {
		o    Identified
		want error
	}{
		{Identified{}, nil},
		{Identified{Outcome: fit.UnconvergedError{Msg: "stopped"}}, nil},
		{Identified{Outcome: failed}, failed},
		{Identified{Refused: refused, Outcome: failed}, refused},
	} {
		if got := c.o.Failure(); got != c.want {
			t.Errorf("%+v: Failure() = %v, want %v", c.o, got, c.want)
		}
	}
}

type rangedParams struct{ V float64 }

func (p rangedParams) Validate() error {
	if p.V < 0 {
		return errors.New("V < 0")
	}
	return nil
}

func TestParamsFile(t *testing.T) {
	b, err := ParamsFile(rangedParams{V: 1}, &fit.Status{Method: "lbfgsb", Status: "converged", Converged: true})
	if err != nil || !strings.HasPrefix(string(b), "{\n  \"V\": 1,") || !strings.HasSuffix(string(b), "}\n") || !strings.Contains(string(b), "converged") {
		t.Fatalf("ParamsFile = %q, %v", b, err)
	}
	if _, err := ParamsFile(rangedParams{V: -1}, nil); err == nil || !strings.Contains(err.Error(), "out of the model's range") {
		t.Fatalf("out of range: %v", err)
	}
}
