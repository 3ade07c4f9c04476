package dataset_test

import (
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/wheelgrad/wheelgrad/dataset"
)

func ExampleRead() {
	// A Mecanum log: 240 Hz wheel commands, camera poses at a lower rate
	// (empty cells between them), two runs, and a column the command does
	// not use.
	const log = `# robot 3, 2024-05-01
t,w1,w2,w3,w4,x,y,theta,traj,battery
0,10,10,10,10,0,0,0,a,12.1
0.25,10,10,10,10,,,,a,12.1
0.5,10,10,10,10,0.1,0.2,0.01,a,12.0
0,-5,5,-5,5,1,1,0,b,12.0
`
	spec := dataset.Spec{
		Columns: []dataset.Column{
			{Name: "t"}, {Name: "w1"}, {Name: "w2"}, {Name: "w3"}, {Name: "w4"},
			{Name: "x", Optional: true, Sparse: true},
			{Name: "y", Optional: true, Sparse: true},
			{Name: "theta", Optional: true, Sparse: true},
			{Name: "traj", Optional: true, Text: true},
		},
		Time:  "t",
		Group: "traj",
	}
	tab, err := dataset.Read(strings.NewReader(log), "log.csv", spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(tab.Len(), "rows on lines", tab.Line)
	fmt.Println("t:", tab.Col("t"))
	fmt.Println("x:", tab.Col("x"))
	fmt.Println("traj:", tab.TextCol("traj"))
	fmt.Println("has battery:", tab.Has("battery"))

	// Errors name the file, the line and the column.
	_, err = dataset.Read(strings.NewReader(strings.Replace(log, "0.25,", "0.25x,", 1)), "log.csv", spec)
	fmt.Println(err)

	// Writing: floats round-trip exactly, NaN becomes an empty cell.
	dataset.WriteCSV(os.Stdout, []string{"t", "x"}, [][]float64{tab.Col("t"), tab.Col("x")})

	// Output:
	// 4 rows on lines [3 4 5 6]
	// t: [0 0.25 0.5 0]
	// x: [0 NaN 0.1 1]
	// traj: [a a a b]
	// has battery: false
	// log.csv: line 4, column "t": "0.25x" is not a number
	// t,x
	// 0,0
	// 0.25,
	// 0.5,0.1
	// 0,1
}

func ExampleWriter() {
	// A simulated trajectory with its trajectory id, text first: ids that
	// start with '#' are quoted so that they do not read as comments.
	w := dataset.NewWriter(os.Stdout)
	w.WriteHeader("traj", "t", "x", "y", "theta")
	w.WriteRow(dataset.Text("#1"), dataset.Num(0), dataset.Num(0), dataset.Num(0), dataset.Num(0))
	w.WriteRow(dataset.Text("#1"), dataset.Num(1.0/240), dataset.Num(1e-3), dataset.Num(-2.5e-4), dataset.Num(math.NaN()))
	if err := w.Flush(); err != nil {
		fmt.Println(err)
	}
	// Output:
	// traj,t,x,y,theta
	// "#1",0,0,0,0
	// "#1",0.004166666666666667,0.001,-0.00025,
}
