package control

import (
	"os"
	"testing"

	"github.com/wheelgrad/wheelgrad/dyn"
)

// TestGenerated keeps the generated kernels of the step-language models
// equal to what dyn.Generate writes for their current definitions
// (DYN_UPDATE=1 go test -run Generated ./control/ rewrites them).
func TestGenerated(t *testing.T) {
	update := os.Getenv("DYN_UPDATE") == "1"
	for _, c := range []struct {
		m            *dyn.Model
		varName, typ string
		path         string
	}{
		{DiffDrivePose, "DiffDrivePose", "diffDrivePoseKernel", "diffdrive_pose_gen.go"},
		{SkidSteer, "SkidSteer", "skidSteerKernel", "skidsteer_gen.go"},
		{MecanumPose, "MecanumPose", "mecanumPoseKernel", "mecanum_pose_gen.go"},
	} {
		if err := dyn.GenerateFile(c.m, "control", c.varName, c.typ, c.path, update); err != nil {
			t.Error(err)
		}
		if !update && !c.m.Generated() {
			t.Errorf("%s: the generated kernel is not in use", c.m.Name())
		}
	}
}
