package dataset

import (
	"bytes"
	"math"
	"strconv"
	"testing"
)

// benchLog is a Mecanum log of rows/4 runs at 240 Hz with camera poses on
// every fourth row.
func benchLog(rows int) []byte {
	var b bytes.Buffer
	b.WriteString("# benchmark log\n" + logHeader)
	for i := range rows {
		t := float64(i%(rows/4)) / 240
		b.WriteString(strconv.FormatFloat(t, 'g', -1, 64))
		for j := 1; j <= 4; j++ {
			b.WriteByte(',')
			b.WriteString(strconv.FormatFloat(10*math.Sin(t+float64(j)), 'g', -1, 64))
		}
		if i%4 == 0 {
			b.WriteString(",0.123456789,-0.987654321,3.14159")
		} else {
			b.WriteString(",,,")
		}
		b.WriteString(",run" + strconv.Itoa(i/(rows/4)) + "\n")
	}
	return b.Bytes()
}

func BenchmarkRead(b *testing.B) {
	data := benchLog(24000) // 100 s at 240 Hz
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := Read(bytes.NewReader(data), "bench.csv", logSpec); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkWriteCSV(b *testing.B) {
	tab, err := Read(bytes.NewReader(benchLog(24000)), "bench.csv", logSpec)
	if err != nil {
		b.Fatal(err)
	}
	names := []string{"t", "w1", "w2", "w3", "w4", "x", "y", "theta"}
	cols := make([][]float64, len(names))
	for i, n := range names {
		cols[i] = tab.Col(n)
	}
	var buf bytes.Buffer
	for b.Loop() {
		buf.Reset()
		if err := WriteCSV(&buf, names, cols); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(buf.Len()))
}
