package deploytarget

import (
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"google.golang.org/protobuf/proto"

	"github.com/clusterplane/clusterplane/apis/clusterplane/kindfield"
	sharedv1 "github.com/clusterplane/clusterplane/apis/clusterplane/shared/v1"
	"github.com/clusterplane/clusterplane/pkg/change/effects"
	"github.com/clusterplane/clusterplane/pkg/cloud/importing"
	"github.com/clusterplane/clusterplane/pkg/cloud/runlist"
	"github.com/clusterplane/clusterplane/pkg/cloud/stackmark"
	"github.com/clusterplane/clusterplane/pkg/cloud/upread"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/apikinds"
	"github.com/clusterplane/clusterplane/pkg/manifest/protofield"
	"github.com/clusterplane/clusterplane/pkg/manifest/reference"
	"github.com/clusterplane/clusterplane/pkg/pulumi/stackrecord"
)

// Target is one manifest to deploy and the stack it deploys to.
type Target struct {
	// Kind is the manifest's kind, embedded rather than copied: its Name (e.g.
	// "DigitalOceanKubernetesCluster"), Short, Project (the stack's project, by the convention
	// references read), Resources (the stack program), Effects (what changing each field does) and
	// the hooks Lookup, ReadyImport, Rotate and Cost (nil when the kind has none) read as t.Name,
	// t.Effects, ...
	kinds.Kind
	// File is the manifest's file as the user named it; callers with no file name their own.
	File string
	// Stack names the stack within the kind's project (see NewTarget), so that a node pool's
	// valueFrom finds the cluster a target deployed.
	Stack string
	// Input is the manifest's stack input, valid: its target and provider config.
	Input proto.Message
	// Retarget says that deploying the manifest onto a stack that recorded another
	// metadata.name is meant (--retarget): what the stack deployed is then deleted and the
	// manifest's resources created. Without it such a deployment is refused (RetargetError).
	Retarget bool
	// deployed is the stack's last deployed manifest and the change from it to Input, worked out
	// once (see DeployedInput); NewTarget makes it, and copies of the target share it.
	deployed *deployedRecord
	// upRead is the stack's state as the up that just ran read it from the cloud, which Program
	// carries to the kind's program (WithUpRead); nil for every other run.
	upRead upread.Read
	// importing tells that the program runs to import what the cloud holds (WithImporting).
	importing bool
	// lists are the run's lists of the clouds' accounts, which Program carries to the kind's
	// program (WithRunLists); nil outside a run.
	lists *runlist.Lists
	// mark is the stack's mark in its backend, which Program carries to the kind's program so that
	// every cluster and pool it creates carries it (MarkedIn); the zero mark outside a backend.
	mark stackmark.Mark
}

// NewTarget is the target of a valid stack input of kind k read from file: its project is the
// kind's program, its stack named by the convention references read, <name>-<env> (or <name>),
// unless stack names another.
func NewTarget(file string, k kinds.Kind, input proto.Message, stack string) Target {
	if stack == "" {
		meta := protofield.At(apikinds.Target(input).ProtoReflect(), kindfield.TargetMetadata)
		stack = reference.Stack(protofield.String(meta, sharedv1.CloudResourceMetadataFieldName), protofield.String(meta, sharedv1.CloudResourceMetadataFieldEnv))
	}
	return Target{Kind: k, File: file, Stack: stack, Input: input, deployed: &deployedRecord{}}
}

// Key names the target's stack within its organization, <project>/<stack>, as references do.
func (t Target) Key() string { return t.Project + "/" + t.Stack }

// Program is the inline Pulumi program that deploys the target: its kind's program, plus the
// outputs clusterplane reads back later (GenerationOutput and ManifestOutput). A target
// WithUpRead runs its kind's program with that read on its context (upread.Carry).
func (t Target) Program() pulumi.RunFunc {
	return func(ctx *pulumi.Context) error {
		if t.upRead != nil {
			ctx = upread.Carry(ctx, t.upRead)
		}
		if t.importing {
			ctx = importing.Carry(ctx)
		}
		if t.lists != nil {
			ctx = ctx.WithValue(runlist.Key{}, t.lists)
		}
		if !t.mark.IsZero() {
			ctx = stackmark.Carry(ctx, t.mark)
		}
		if err := t.Resources(ctx, t.Input); err != nil {
			return err
		}
		stackrecord.Export(ctx, t.Input)
		return nil
	}
}

// WithUpRead is t whose program takes read, the stack's state as the up that just ran read it
// from the cloud, for what it would otherwise ask the cloud (upread). Only a preview that
// compares that same state with the manifest, right after that up, is given one.
func (t Target) WithUpRead(read upread.Read) Target {
	t.upRead = read
	return t
}

// WithRunLists is t whose program takes its look-ups' lists of the clouds' accounts from lists,
// the run's (package runlist), as the run's own look-ups do.
func (t Target) WithRunLists(lists *runlist.Lists) Target {
	t.lists = lists
	return t
}

// MarkedIn is t whose stack is in backend b: its program's clusters and pools carry the stack's
// mark there (stackmark).
func (t Target) MarkedIn(b interface{ ID() string }) Target {
	t.mark = stackmark.Of(b.ID(), t.Key())
	return t
}

// WithMark is t whose program adds mark m, the zero mark none: drift runs a stack's program as its
// last up deployed it, with the mark its state records (another machine's spelling of the
// backend's, or none for a stack deployed before clusterplane marked what it creates).
func (t Target) WithMark(m stackmark.Mark) Target {
	t.mark = m
	return t
}

// Mark is the stack's mark (MarkedIn), the zero mark before.
func (t Target) Mark() stackmark.Mark { return t.mark }

// WithImporting is t whose program runs to import what the cloud holds (adopt), which its kind's
// module is told (package importing).
func (t Target) WithImporting() Target {
	t.importing = true
	return t
}

// GuardedType is the type of the cluster or node pool a target of the kind whose effects table
// is given creates, "" when unknown.
func GuardedType(table *effects.Table) string {
	if table == nil {
		return ""
	}
	if typ := table.Types[effects.Cluster]; typ != "" {
		return typ
	}
	return table.Types[effects.NodePool]
}

// MetadataName is the manifest's metadata.name, by which --allow-replace=KIND/NAME names it.
func (t Target) MetadataName() string {
	meta := protofield.At(apikinds.Target(t.Input).ProtoReflect(), kindfield.TargetMetadata)
	return protofield.String(meta, sharedv1.CloudResourceMetadataFieldName)
}
