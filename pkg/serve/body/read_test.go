package body_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/clusterplane/clusterplane/iac/pulumi/registry"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
)

// oneCluster is a store of one cluster, "c", as the store hands it on: its name and spec as
// written.
type oneCluster struct{}

func (oneCluster) ClusterSpec(context.Context, string) (string, json.RawMessage, error) {
	return "dev", json.RawMessage(`{"platform": {"type": "digitalocean", "digitalocean": {"region": "fra1"}}}`), nil
}

// Read is the one read of a body: the API checks a request with it and the worker deploys it, so
// its result and its errors are what both take.
func TestABodyIsReadIntoItsTargetOrItsProblemsNamedAsTheBodyWroteThem(t *testing.T) {
	tests := []struct {
		name, text string
		// stack is the target's stack key; field, the one problem's field as the body wrote it.
		stack, field string
	}{
		{"a pool's body is its manifest read into its target, in its cluster's stack's name",
			`{"name": "workers", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"size": "s-2vcpu-4gb"}}, "nodeCount": 2}}`,
			"digitaloceankubernetesnodepool/dev-workers", ""},
		{"a body no manifest is made of says the body's problem",
			`{"name": "workers", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"size": "s-2vcpu-4gb", "nodeCount": 2}}}}`,
			"", "spec.platform.digitalocean.nodeCount"},
		{"a manifest its kind does not read says the field as the body wrote it",
			`{"name": "workers", "spec": {"platform": {"type": "digitalocean", "digitalocean": {"size": "s-2vcpu-4gb"}}, "nodeCount": -1}}`,
			"", "spec.nodeCount"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := body.Parse([]byte(tt.text))
			if err != nil {
				t.Fatal(err)
			}
			m, err := body.Read(context.Background(), registry.Kinds(), b, true, "c", oneCluster{})
			if tt.stack != "" {
				if err != nil || m.Target.Key() != tt.stack || len(m.Data) == 0 {
					t.Fatalf("target %q (%v), want %q and its text", m.Target.Key(), err, tt.stack)
				}
				return
			}
			var problems *body.ProblemsError
			if !errors.As(body.Problems(err, "digitalocean", true), &problems) {
				t.Fatalf("error %v (%T), want the body's problems", err, err)
			}
			if len(problems.Problems) == 0 || problems.Problems[0].Field != tt.field {
				t.Errorf("problems %+v, want one at %s", problems.Problems, tt.field)
			}
			var unread *deploytarget.ProblemsError
			if errors.As(err, &unread) != (tt.field == "spec.nodeCount") {
				t.Errorf("error %T: want a *deploytarget.ProblemsError exactly when the kind does not read the manifest", err)
			}
		})
	}
}
