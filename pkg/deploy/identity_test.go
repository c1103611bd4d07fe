package deploy_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
)

// onto is the cluster manifest of name and env, deployed to the stack of stack (as --stack does).
func onto(t *testing.T, name, env string, stack deploytarget.Target) deploytarget.Target {
	t.Helper()
	tg := target(t, name+".yaml", clusterText(name, env))
	tg.Stack = stack.Stack
	return tg
}

// Promise: stack-of-another-manifest-refused
// Promise: retarget-previews-as-replacement
// Promise: stack-env-never-changes
// Promise: policy-env-stack-of-its-own
func TestAnotherManifestOnAStackIsRefusedBeforeTheEngineRunsUnlessItIsMeant(t *testing.T) {
	for _, tc := range []struct {
		name, other, env string
		retarget         bool
		// want is the outcome of preview and of up; says what the refusal must name.
		preview, up outcome.Status
		says        []string
	}{
		{"another name is refused", "dev", "prod", false, outcome.Blocked, outcome.Blocked,
			[]string{`metadata.name "prod", the manifest "dev"`, "--retarget"}},
		{"another environment is refused", "prod", "dev", false, outcome.Blocked, outcome.Blocked,
			[]string{`metadata.env "prod", the manifest "dev"`, "never changes"}},
		{"another environment is refused even when meant", "dev", "dev", true, outcome.Blocked, outcome.Blocked,
			[]string{`metadata.env "prod", the manifest "dev"`, "never changes"}},
		{"another name, meant, is a replacement to preview and done by up --yes", "dev", "prod", true, outcome.Blocked, outcome.Done, nil},
		{"the same manifest passes", "prod", "prod", false, outcome.Done, outcome.Done, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			d, b := deployer()
			prod := target(t, "prod.yaml", clusterText("prod", "prod"))
			mustUp(ctx, t, d, prod)
			updates := calls(b, "update")
			other := onto(t, tc.other, tc.env, prod)
			other.Retarget = tc.retarget

			p := d.Preview(ctx, other, deploy.PreviewOptions{})
			if p.Status != tc.preview {
				t.Errorf("preview: %s %v, want %s", p.Status, p.Err, tc.preview)
			}
			u := d.Up(ctx, other, deploy.UpOptions{Yes: true})
			if u.Status != tc.up {
				t.Errorf("up --yes: %s %v, want %s", u.Status, u.Err, tc.up)
			}
			if tc.says != nil {
				var refusal *deploytarget.RetargetError
				if !errors.As(u.Err, &refusal) || !errors.As(p.Err, &refusal) {
					t.Fatalf("up said %v, preview %v: want both refused as another manifest's stack", u.Err, p.Err)
				}
				for _, want := range tc.says {
					if !strings.Contains(u.Err.Error(), want) {
						t.Errorf("the refusal %q does not say %q", u.Err, want)
					}
				}
				if calls(b, "update") != updates {
					t.Error("the refused up ran the engine")
				}
			}
		})
	}
}
