package robots

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wheelgrad/wheelgrad/dataset"
)

// ImportBag reads the topics a map names from a ROS 1 bag into a model's
// log CSV, which dataset reads back, and reports each topic.
func TestImportBag(t *testing.T) {
	mp := writeTemp(t, "map.json", `{"topics": [
		{"topic": "/cmd_vel", "columns": {"vc": "linear.x", "wc": "angular.z"}},
		{"topic": "/mocap/pose", "columns": {"x": "pose.position.x", "y": "pose.position.y", "psi": "pose.orientation.yaw"}}]}`)
	bagPath := filepath.Join("..", "dataset", "bag", "testdata", "scenario-bz2.bag")
	sink := &recSink{}
	lg, err := ImportBag(BagImport{Bag: bagPath, Map: mp, Model: "skidsteer", Sink: sink})
	if err != nil {
		t.Fatal(err)
	}
	if len(lg.Summary) != 3 || !strings.HasPrefix(lg.Summary[0], "import: /cmd_vel (") || !strings.Contains(lg.Summary[2], " rows over ") || sink.prog == 0 {
		t.Errorf("summary %q, %d progress lines", lg.Summary, sink.prog)
	}
	var b bytes.Buffer
	if err := lg.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	spec := dataset.Spec{Time: "t", Columns: []dataset.Column{{Name: "t"}}}
	for _, c := range []string{"vc", "wc", "x", "y", "psi"} {
		spec.Columns = append(spec.Columns, dataset.Column{Name: c, Sparse: true})
	}
	tab, err := dataset.Read(&b, "log.csv", spec)
	if err != nil {
		t.Fatal(err)
	}
	if tab.Len() < 10 {
		t.Errorf("%d rows", tab.Len())
	}
	if _, err := ImportBag(BagImport{Bag: bagPath, Map: mp, Model: "tank"}); err == nil {
		t.Error("model tank imported")
	}
}
