package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/cloud/digitalocean"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
)

func TestUpgradeWithAFolderButNoPlanIsAUsageErrorNamingUpgradePlan(t *testing.T) {
	r := run(t, "", "upgrade", "examples/")
	if r.code != exitcode.Usage || !strings.Contains(r.stderr, "clusterplane upgrade plan examples/") {
		t.Errorf("exit %d, want %d and a pointer to `upgrade plan examples/`:\nstdout: %s\nstderr: %s", r.code, exitcode.Usage, r.stdout, r.stderr)
	}
}

func TestUpgradePlanWithoutATokenExits1WithTheNoTokenMessage(t *testing.T) {
	dir := fleet(t)
	t.Setenv(digitalocean.TokenEnv, "")
	r := run(t, "", "upgrade", "plan", filepath.Join(dir, "cluster.yaml"))
	if r.code != exitcode.Invalid || !strings.Contains(r.stdout+r.stderr, "no DigitalOcean API token") {
		t.Errorf("exit %d, want 1 and the no-token message:\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

func TestUpgradePlanOfTwoFilesOfOneStackIsRefusedNotPlannedTwice(t *testing.T) {
	dir := fleet(t)
	data, err := os.ReadFile(filepath.Join(dir, "cluster.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "cluster-twin.yaml"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv(digitalocean.TokenEnv, "")
	r := run(t, "", "upgrade", "plan", dir)
	if r.code != exitcode.Invalid || !strings.Contains(r.stderr, "both deploy stack") {
		t.Errorf("exit %d, want 1 and the two files named:\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}
