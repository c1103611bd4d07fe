package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/effects"
	"github.com/clusterplane/clusterplane/pkg/program"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/proto"
)

func (a *app) adoptCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "adopt FILE --id CLOUD_ID",
		Short: "Bring an existing cluster or node pool under management, changing nothing",
		Long: `adopt imports the cloud's cluster or node pool with the given id into the manifest's stack, with
Pulumi's import: the manifest's module is deployed with the existing resource instead of a new
one. When the manifest disagrees with the live resource, it changes nothing and lists each
differing field, the manifest's value against the live one (secrets never), and exits 3; correct
the manifest and run it again. It exits 0 when adopted, 1 for invalid input or a failure.

CLOUD_ID is the cluster's id, a DigitalOcean pool's id, or for a Civo pool CLUSTER_ID:POOL_NAME
(a Civo pool's name is its id within its cluster).`,
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: manifestFiles,
	}
	id := cmd.Flags().String("id", "", "the cloud's id of the cluster or node pool (required)")
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		if *id == "" {
			return errors.New("adopt needs --id, the cloud's id of the cluster or node pool")
		}
		targets := a.loadTargets(files, "")
		if len(targets) == 0 {
			return nil
		}
		t := targets[0]
		ctx, cancel := signalContext()
		defer cancel()
		if err := a.adopt(ctx, t, *id); err != nil {
			a.fail(t, err)
		}
		return nil
	}
	return cmd
}

// adopted is the cloud resource type a kind adopts: its cluster, or its node pool.
func adopted(kind string) string {
	types := effects.For(kind).Types
	if typ, ok := types[effects.Cluster]; ok {
		return typ
	}
	return types[effects.NodePool]
}

func (a *app) adopt(ctx context.Context, t target, id string) error {
	typ := adopted(t.kind.Name)
	importing := t
	deploy := t.kind.Deploy
	importing.kind = &kind{}
	*importing.kind = *t.kind
	importing.kind.Deploy = func(ctx *pulumi.Context, in proto.Message) error {
		// Every registration of the adopted type imports the resource with this id.
		err := ctx.RegisterResourceTransform(func(_ context.Context, args *pulumi.ResourceTransformArgs) *pulumi.ResourceTransformResult {
			if args.Type != typ {
				return nil
			}
			args.Opts.Import = pulumi.ID(id)
			return &pulumi.ResourceTransformResult{Props: args.Props, Opts: args.Opts}
		})
		if err != nil {
			return errors.Wrap(err, "register the import")
		}
		return deploy(ctx, in)
	}
	s, err := a.workspaceFor(ctx, importing, true)
	if err != nil {
		return err
	}
	stream := make(chan events.EngineEvent)
	diffs := map[string][2]any{}
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for ev := range stream {
			// The engine imports the live resource, then plans an update (or replacement) for
			// whatever the manifest says otherwise: those are the disagreements.
			pre := ev.ResourcePreEvent
			if pre == nil || pre.Metadata.Type != typ || pre.Metadata.Op == apitype.OpImport || pre.Metadata.Op == apitype.OpSame {
				continue
			}
			for _, path := range diffPaths(pre) {
				diffs[path] = [2]any{value(pre.Metadata.New, path), value(pre.Metadata.Old, path)}
			}
		}
	}()
	_, previewErr := s.Preview(ctx, optpreview.EventStreams(stream), optpreview.ProgressStreams(a.stderr))
	<-collected
	if len(diffs) > 0 {
		paths := make([]string, 0, len(diffs))
		for p := range diffs {
			paths = append(paths, p)
		}
		sort.Strings(paths)
		fmt.Fprintf(a.stdout, "%s: not adopted: the manifest disagrees with %s %s; nothing was changed\n", t.file, typ, id)
		for _, p := range paths {
			fmt.Fprintf(a.stdout, "  %s: manifest %s, live %s\n", p, show(diffs[p][0]), show(diffs[p][1]))
		}
		a.raise(program.ExitBlocked)
		return nil
	}
	if previewErr != nil {
		return previewErr
	}
	if _, err := s.Up(ctx, optup.ProgressStreams(a.stderr)); err != nil {
		return err
	}
	fmt.Fprintf(a.stdout, "%s: adopted %s %s into %s\n", t.file, typ, id, t.key())
	return nil
}

// value reads a top-level or dotted input of a step's state; secrets arrive as "[secret]".
func value(state *apitype.StepEventStateMetadata, path string) any {
	if state == nil {
		return nil
	}
	var v any = state.Inputs
	for _, part := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[part]
	}
	return v
}

func show(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(data)
}
