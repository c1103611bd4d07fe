package main

import (
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

func TestUpgradeWithAFolderButNoPlanIsAUsageErrorNamingUpgradePlan(t *testing.T) {
	r := run(t, "", "upgrade", "examples/")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, "clusterplane upgrade plan examples/") {
		t.Errorf("exit %d, want %d and a pointer to `upgrade plan examples/`:\nstdout: %s\nstderr: %s", r.code, exitcode.Usage, r.stdout, r.stderr)
	}
}
