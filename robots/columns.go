package robots

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// A parameter file may describe the robot's recordings beside its
// parameters: its "columns" object (dataset.ColumnsKey) is the same column
// map as the command line's -columns, in the same syntax ({"t":
// "ros_time:ns", "wl": "meas_left_vel", "psi": "quat(qx,qy,qz,qw)"}).
// Every model's parameter reader skips the key; ParamColumns applies it to
// the sources, and an identified parameter file carries it on
// (WithColumns), so that validate and simulate read the same recordings
// the same way.

// ParamColumns puts the column map of the parameter file path ("" for
// none) under each source's own: the source's entries (the command line's
// -columns) replace the file's for the same target, its -where filters are
// added, and its -from/-to replace the file's. It returns the file's
// entries as written (nil when it has none), for WithColumns.
func ParamColumns(path string, srcs []Source) (map[string]string, error) {
	if path == "" {
		return nil, nil
	}
	m, raw, err := dataset.ReadColumnsKey(path)
	if err != nil || m == nil {
		return nil, err
	}
	for i := range srcs {
		srcs[i].Columns = m.Override(srcs[i].Columns)
	}
	return raw, nil
}

// WithColumns returns parameters that marshal as p with a "columns" object
// (the column map cols, as a parameter file holds it) after p's own keys,
// and validate as p; p itself when cols is empty.
func WithColumns(p Params, cols map[string]string) Params {
	if len(cols) == 0 {
		return p
	}
	return withColumns{p: p, cols: cols}
}

type withColumns struct {
	p    Params
	cols map[string]string
}

func (w withColumns) Validate() error {
	if v, ok := w.p.(interface{ Validate() error }); ok {
		return v.Validate()
	}
	return nil
}

func (w withColumns) MarshalJSON() ([]byte, error) {
	b, err := json.Marshal(w.p)
	if err != nil {
		return nil, err
	}
	c, err := json.Marshal(w.cols)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSpace(b)
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, fmt.Errorf("the parameters are not a JSON object")
	}
	var out bytes.Buffer
	out.Write(b[:len(b)-1])
	if len(bytes.TrimSpace(b[1:len(b)-1])) > 0 {
		out.WriteByte(',')
	}
	out.WriteString(`"` + dataset.ColumnsKey + `":`)
	out.Write(c)
	out.WriteByte('}')
	return out.Bytes(), nil
}
