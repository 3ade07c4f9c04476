package stage_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/wheelgrad/wheelgrad/cli/stage"
)

func ExampleWriteFileAtomic() {
	path := filepath.Join(os.TempDir(), "wheelgrad-example.csv")
	defer os.Remove(path)
	t := []float64{0, 0.5, 1}
	err := stage.WriteFileAtomic(path, func(w io.Writer) error {
		_, err := fmt.Fprintf(w, "t,w1\n%g,1\n%g,2\n%g,3\n", t[0], t[1], t[2])
		return err
	})
	fmt.Println(err)

	// A failing write leaves the file as it was.
	err = stage.WriteFileAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "t,w1\n0,")
		return errors.New("controls diverged")
	})
	fmt.Println(err != nil)
	b, _ := os.ReadFile(path)
	fmt.Print(string(b))
	// Output:
	// <nil>
	// true
	// t,w1
	// 0,1
	// 0.5,2
	// 1,3
}
