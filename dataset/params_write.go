package dataset

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// ParamsJSON is the content of a parameter file: params as an indented
// JSON object, its members in their own order, then record (the fit that
// produced them; nil for none) as the last member under FitKey, which
// ReadJSON skips, and a final newline. A value JSON cannot hold (NaN,
// ±Inf) is an error.
func ParamsJSON(params, record any) ([]byte, error) {
	b, err := json.Marshal(params)
	if err != nil {
		return nil, fmt.Errorf("the computed parameters cannot be written (%v)", err)
	}
	if record != nil {
		rec, err := json.Marshal(record)
		if err != nil {
			return nil, fmt.Errorf("the fit's record cannot be written (%v)", err)
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(b, &m); err != nil {
			return nil, fmt.Errorf("the parameters are not a JSON object (%v)", err)
		}
		// Members in the parameters' own order, the record last.
		var buf bytes.Buffer
		buf.WriteByte('{')
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.Token()
		first := true
		for dec.More() {
			k, _ := dec.Token()
			var v json.RawMessage
			dec.Decode(&v)
			if !first {
				buf.WriteByte(',')
			}
			first = false
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			buf.Write(v)
		}
		if !first {
			buf.WriteByte(',')
		}
		buf.WriteString(`"` + FitKey + `":`)
		buf.Write(rec)
		buf.WriteByte('}')
		b = buf.Bytes()
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, "", "  "); err != nil {
		return nil, err
	}
	out.WriteByte('\n')
	return out.Bytes(), nil
}
