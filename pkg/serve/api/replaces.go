package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/change/diff"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/serve/body"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
)

// replaces refuses an update whose change from the stored object's spec to b would replace the
// cluster or the pool (409): the API never replaces, as up never does unasked (package replace),
// since a replacement deletes the old one with its nodes and their pods at once. A pool whose
// cloud block carries a rollout block (strategy: ROTATE) is rotated instead, which the effects
// table calls a rotate, not a replace: that update is accepted. m is b's manifest as checkBody
// read it; only the stored spec is read here.
func (s *Server) replaces(ctx context.Context, objectType string, old store.Object, b body.Body, m deploytarget.Manifest) error {
	was, err := body.Stored(old.Name, old.ClusterID, old.Spec)
	if err != nil {
		return err
	}
	pool := objectType == store.NodePool
	if body.KindName(was.Spec.Platform.Type, pool) != m.Target.Name {
		return nil // another platform: checkBody said so
	}
	before, err := body.Read(ctx, s.Kinds, was, pool, old.ClusterID, s.Store.Objects())
	if err != nil {
		return nil // a stored spec no longer read is the worker's to report, not this write's
	}
	k := m.Target.Kind
	oldT, newT := before.Target, m.Target
	result, err := diff.Compare(k.Effects, oldT.Input, newT.Input)
	if err != nil || !result.Replaces {
		return err
	}
	var fields []string
	for _, c := range result.Changes {
		if c.Effect == effects.Replace {
			fields = append(fields, body.Field(c.Path, b.Spec.Platform.Type))
		}
	}
	way := "create another " + objectType + " with the new spec, move the workloads, and delete this one"
	if pool {
		way = fmt.Sprintf("add a rollout block (\"rollout\": {\"strategy\": \"ROTATE\"}) to spec.platform.%s to rotate the pool "+
			"instead, its pods drained onto the new one, or %s", b.Spec.Platform.Type, way)
	}
	return &Error{Status: http.StatusConflict, Code: "CONFLICT", Message: fmt.Sprintf("changing %s replaces the %s: a "+
		"replacement deletes it with its nodes and their pods at once, and the API never replaces; %s",
		strings.Join(fields, ", "), objectType, way)}
}
