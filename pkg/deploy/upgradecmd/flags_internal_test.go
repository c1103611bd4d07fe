package upgradecmd

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

func TestUpgradePlansFlagsMakeItsOptionsWithoutAskingACloud(t *testing.T) {
	var stdout, stderr bytes.Buffer
	env := Env{Stdout: &stdout, Stderr: &stderr}
	var got *planOptions
	upgrade := New(env)
	for _, c := range upgrade.Commands() {
		if c.Name() == "plan" {
			upgrade.RemoveCommand(c)
		}
	}
	upgrade.AddCommand(newPlan(env, func(o *planOptions) error { got = o; return nil }))
	upgrade.SetArgs(strings.Fields("plan --write -o markdown prod staging/cluster.yaml"))
	if err := upgrade.Execute(); err != nil {
		t.Fatal(err)
	}
	if got == nil {
		t.Fatal("runF was not called")
	}
	if s, want := fmt.Sprintf("%q write=%t %s", got.files, got.write, got.output), `["prod" "staging/cluster.yaml"] write=true markdown`; s != want {
		t.Errorf("got %s, want %s", s, want)
	}
	if stdout.Len()+stderr.Len() > 0 {
		t.Errorf("something ran: %s%s", stdout.String(), stderr.String())
	}
}

func TestApplyRefusesAGoalThatIsNoVersionAndADryRunReportBeforeReadingAFile(t *testing.T) {
	for _, args := range []string{"apply fleet --to banana", "apply fleet --dry-run --report-file r.json", "apply fleet --parallel 0",
		"apply fleet --poll 0s", "apply fleet --step-timeout 0s"} {
		var stdout, stderr bytes.Buffer
		// No Targets: a command that read its files would panic.
		cmd := New(Env{Stdout: &stdout, Stderr: &stderr})
		cmd.SetArgs(strings.Fields(args))
		cmd.SetOut(&stderr)
		cmd.SetErr(&stderr)
		if err := cmd.Execute(); err == nil {
			t.Errorf("%s: no error", args)
		} else if flag := strings.Fields(args)[2]; !strings.Contains(err.Error(), strings.TrimPrefix(flag, "--")) {
			t.Errorf("%s: %v, want it to name the flag", args, err)
		} else if flag == "--poll" && strings.Contains(err.Error(), "step-timeout") {
			t.Errorf("%s: %v, want it to name --poll alone", args, err)
		}
	}
}
