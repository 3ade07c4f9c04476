package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// The test binary runs the command itself when FLEET_CMD_TEST is set, so
// the exit statuses are those of the real command.
func TestMain(m *testing.M) {
	if os.Getenv("FLEET_CMD_TEST") == "1" {
		os.Args = append([]string{"fleet"}, strings.Fields(os.Getenv("FLEET_CMD_ARGS"))...)
		os.Exit(run())
	}
	os.Exit(m.Run())
}

func fleetCmd(t *testing.T, args ...string) (code int, stderr string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "FLEET_CMD_TEST=1", "FLEET_CMD_ARGS="+strings.Join(args, " "))
	var eb bytes.Buffer
	cmd.Stderr = &eb
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.ExitCode(), eb.String()
	}
	if err != nil {
		t.Fatal(err)
	}
	return 0, eb.String()
}

func TestExitStatuses(t *testing.T) {
	dir := t.TempDir()
	ss, _ := filepath.Abs(filepath.Join("..", "..", "..", "models", "skidsteer", "testdata"))
	bad := filepath.Join(dir, "bad.csv")
	os.WriteFile(bad, []byte("t,vc,wc\n0,0.2,0\n0.05,x,0\n"), 0o644)
	manifest := filepath.Join(dir, "m.csv")
	os.WriteFile(manifest, []byte("robot,model,day,data,poses\n"+
		"r1,skidsteer,1,"+filepath.Join(ss, "commands.csv")+","+filepath.Join(ss, "vo.csv")+"\n"+
		"r1,skidsteer,2,"+filepath.Join(ss, "commands.csv")+","+filepath.Join(ss, "vo.csv")+"\n"+
		"r1,skidsteer,3,bad.csv,\n"), 0o644)
	out := filepath.Join(dir, "out")

	if code, msg := fleetCmd(t, "-manifest", manifest); code != 2 || !strings.Contains(msg, "-out is required") {
		t.Errorf("no -out: exit %d, %q", code, msg)
	}
	if code, msg := fleetCmd(t, "-manifest", manifest, "-out", out, "-k", "-1"); code != 2 || !strings.Contains(msg, "-k -1") {
		t.Errorf("-k -1: exit %d, %q", code, msg)
	}
	if code, msg := fleetCmd(t, "-layout", dir, "-model", "skidsteer", "-out", out); code != 2 || !strings.Contains(msg, "inside -layout") {
		t.Errorf("-out inside -layout: exit %d, %q", code, msg)
	}
	if code, msg := fleetCmd(t, "-manifest", bad, "-out", out); code != 1 || !strings.Contains(msg, "bad.csv: line 1: missing columns") {
		t.Errorf("not a manifest: exit %d, %q", code, msg)
	}
	code, msg := fleetCmd(t, "-manifest", manifest, "-out", out)
	if code != 0 || !strings.Contains(msg, "3 robot-day(s) on prism") || !strings.Contains(msg, "1 dead letter(s)") || !strings.Contains(msg, "fleet: 3/3 robot-days") {
		t.Fatalf("fleet: exit %d, %q", code, msg)
	}
	if strings.Contains(msg, "level=INFO") {
		t.Errorf("Beam's INFO lines without -v: %q", msg)
	}
	d, err := os.ReadFile(filepath.Join(out, "dead_letters.jsonl"))
	if err != nil || !strings.Contains(string(d), `bad.csv: line 3, column \"vc\"`) {
		t.Errorf("dead letters %s, %v", d, err)
	}
	for _, f := range []string{"report.jsonl", "report.csv", "params.png", "drift.json", "history/r1.csv", "params/r1/1.json", "params/r1/2.json"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Error(err)
		}
	}
}
