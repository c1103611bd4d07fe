package main

import (
	"bytes"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"path/filepath"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytest"
	"github.com/pkg/errors"
)

// Secrets a backend's error may carry: the password of a URL, and the run's passphrase.
const (
	urlPassword = "S3cretPassw0rd"
	passphrase  = "passphrase-sentinel-42"
)

// backendFault is an error as a backend other than autostack could return it, unredacted: the
// command's own output is the last line of defence.
var backendFault = errors.New(`unable to open state database "postgres://clusterplane:` + urlPassword +
	`@127.0.0.1:1/state?sslmode=disable": failed to ping PostgreSQL; PULUMI_CONFIG_PASSPHRASE was ` + passphrase)

func TestNoDeployCommandPrintsASecretItsBackendsErrorCarries(t *testing.T) {
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", passphrase)
	dir := fleet(t)
	cluster, pool := filepath.Join(dir, "cluster.yaml"), filepath.Join(dir, "pool.yaml")
	const key = "digitaloceankubernetescluster/platform-prod"
	tests := [][]string{
		{"status", cluster}, {"preview", cluster}, {"up", cluster, "--yes"}, {"destroy", cluster, "--yes"},
		{"kubeconfig", cluster}, {"refresh", cluster}, {"drift", cluster}, {"status", cluster, "-o", "json"},
		{"preview", cluster, "-o", "markdown"}, {"drift", cluster, "-o", "markdown"},
		// The pool's reference is looked up before any stack runs: that error is printed apart.
		{"preview", pool},
	}
	for _, args := range tests {
		t.Run(strings.ReplaceAll(strings.Join(args, " "), dir+string(filepath.Separator), ""), func(t *testing.T) {
			b := deploytest.New()
			// Every command opens the stack (or, for the pool, the cluster's it references).
			b.Fail(key, "open", backendFault)
			r := deployRun(t, b, nil, false, args...)
			if r.code == 0 {
				t.Errorf("exit 0 on a failing backend:\n%s\n%s", r.stdout, r.stderr)
			}
			out := r.stdout + r.stderr
			for _, secret := range []string{urlPassword, passphrase} {
				if strings.Contains(out, secret) {
					t.Errorf("printed %q:\nstdout:\n%s\nstderr:\n%s", secret, r.stdout, r.stderr)
				}
			}
			if !strings.Contains(out, "postgres://clusterplane:[redacted]@127.0.0.1:1/state") {
				t.Errorf("does not say which backend failed:\nstdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
			}
		})
	}
}

func TestTheEnginesProgressIsRedactedLineByLineAndItsLastLineIsKept(t *testing.T) {
	t.Setenv("PULUMI_CONFIG_PASSPHRASE", passphrase)
	for _, targets := range []int{1, 2} {
		var stderr bytes.Buffer
		a := newApp(registry.Kinds(), nil, &bytes.Buffer{}, &stderr)
		// -v: a fleet's progress is shown as it comes, as one stack's is.
		w := a.f.streams(&deployOptions{verbose: true}).For(targets)(deploytarget.Target{Kind: kinds.Kind{Project: "p"}, Stack: "s"})
		// Split where a pipe may split it: inside the URL and inside the passphrase.
		for _, chunk := range []string{"Previewing (postgres://u:" + urlPassword[:4], urlPassword[4:] + "@db/x)\nlast: " +
			passphrase[:6], passphrase[6:]} {
			if _, err := w.Write([]byte(chunk)); err != nil {
				t.Fatal(err)
			}
		}
		a.f.streams(nil).Flush()
		got := stderr.String()
		if strings.Contains(got, urlPassword) || strings.Contains(got, passphrase) {
			t.Errorf("%d targets: the progress says a secret:\n%s", targets, got)
		}
		if !strings.Contains(got, "postgres://u:[redacted]@db/x)\n") || !strings.Contains(got, "last: [redacted]") {
			t.Errorf("%d targets: the progress lost a line:\n%q", targets, got)
		}
	}
}
