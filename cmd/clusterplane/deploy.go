package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/blang/semver"
	"github.com/clusterplane/clusterplane/pkg/effects"
	"github.com/clusterplane/clusterplane/pkg/program"
	"github.com/clusterplane/clusterplane/pkg/reference"
	"github.com/clusterplane/clusterplane/pkg/stackinput"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/common/workspace"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
	"github.com/spf13/cobra"
	"google.golang.org/protobuf/proto"
)

// minimumPulumi is the oldest Pulumi CLI the deploy commands are tested with.
var minimumPulumi = semver.MustParse("3.259.0")

// stackTimeout bounds one stack's operation: a cluster takes minutes, never hours.
const stackTimeout = 2 * time.Hour

// target is one manifest to deploy: its file, kind, stack input and stack.
type target struct {
	file  string
	kind  *kind
	input proto.Message
	// project and stack name the stack: <organization>/<project>/<stack>, the README's reference
	// convention, so that valueFrom references between manifests resolve.
	project, stack string
}

// loadTargets reads and validates every file (once each); on failure it prints every problem,
// sets the exit code and returns nil.
func (a *app) loadTargets(args []string, stackOverride string) []target {
	inputs, err := a.expand(args)
	if err != nil {
		fmt.Fprintln(a.stderr, err)
		a.code = program.ExitInvalid
		return nil
	}
	var out []target
	failed := false
	for _, in := range inputs {
		f, k, skipped, err := a.load(in)
		if skipped {
			continue // other YAML in a directory, as validate skips it
		}
		stackInput := proto.Message(nil)
		if err == nil {
			stackInput = k.NewStackInput()
			err = stackinput.Parse(f.Data, f.Name, stackInput)
		}
		if err != nil {
			fmt.Fprintln(a.stderr, err)
			failed = true
			continue
		}
		project, stack := stackName(k, stackInput)
		if stackOverride != "" {
			stack = stackOverride
		}
		out = append(out, target{file: in.file, kind: k, input: stackInput, project: project, stack: stack})
	}
	if failed {
		a.code = program.ExitInvalid
		return nil
	}
	return out
}

// fleet orders the targets by their references and runs op on each (see runFleet).
func (a *app) fleet(targets []target, parallel int, reverse bool, op func(ctx context.Context, t target, w io.Writer) (string, error)) {
	if len(targets) == 0 {
		return
	}
	ctx, cancel := signalContext()
	defer cancel()
	sorted, deps, err := order(targets, func(key string) (bool, error) { return a.stackExists(ctx, key, targets[0]) })
	if err != nil {
		fmt.Fprintln(a.stderr, err)
		a.raise(program.ExitInvalid)
		return
	}
	a.runFleet(ctx, sorted, deps, parallel, reverse, op)
}

// stackExists tells whether the stack <project>/<stack> exists in the backend; an error is one
// that kept the backend from saying (no CLI, no passphrase, the backend out of reach).
func (a *app) stackExists(ctx context.Context, key string, like target) (bool, error) {
	project, stack, _ := strings.Cut(key, "/")
	t := target{project: project, stack: stack, kind: like.kind, input: like.input}
	_, err := a.workspaceFor(ctx, t, false)
	if auto.IsSelectStack404Error(err) {
		return false, nil
	}
	return err == nil, err
}

// stackTargets loads the files for a command with --stack, which names the stack of one manifest.
func (a *app) stackTargets(files []string, stack string) ([]target, error) {
	targets := a.loadTargets(files, stack)
	if stack != "" && len(targets) > 1 {
		// Counted after loading: a directory may hold several manifests.
		return nil, errors.Errorf("--stack names the stack of one manifest, and %d were given", len(targets))
	}
	return targets, nil
}

// stackName is the README's convention: project = the kind's program, stack = <name>-<env>, or
// <name> without env.
func stackName(k *kind, in proto.Message) (string, string) {
	md := stackinput.Target(in).ProtoReflect()
	meta := md.Get(md.Descriptor().Fields().ByName("metadata")).Message()
	return k.Program, reference.Stack(meta.Get(meta.Descriptor().Fields().ByName("name")).String(),
		meta.Get(meta.Descriptor().Fields().ByName("env")).String())
}

// workspaceFor opens (creating when asked) the target's stack with an inline program: the
// kind's module runs in this process, no program folder and no `go build`.
func (a *app) workspaceFor(ctx context.Context, t target, create bool) (auto.Stack, error) {
	cmd, err := pulumiCommand()
	if err != nil {
		return auto.Stack{}, err
	}
	if err := providePlugin(); err != nil {
		return auto.Stack{}, err
	}
	backend, err := backendURL()
	if err != nil {
		return auto.Stack{}, err
	}
	project := workspace.Project{
		Name:    tokens.PackageName(t.project),
		Runtime: workspace.NewProjectRuntimeInfo("go", nil),
		Backend: &workspace.ProjectBackend{URL: backend},
	}
	program := func(ctx *pulumi.Context) error {
		if err := t.kind.Deploy(ctx, t.input); err != nil {
			return err
		}
		// The manifest's generation, so that status can tell whether the last up deployed it.
		ctx.Export(generationOutput, pulumi.String(generation(t.input)))
		return nil
	}
	ws, err := auto.NewLocalWorkspace(ctx, auto.Project(project), auto.Pulumi(cmd), auto.SecretsProvider("passphrase"),
		auto.Program(program))
	if err != nil {
		return auto.Stack{}, errors.Wrap(err, "set up the stack's workspace")
	}
	switch {
	case inFileBackend(backend, t.project, t.stack):
		return auto.SelectStack(ctx, t.stack, preselected{ws})
	case create:
		return auto.UpsertStack(ctx, t.stack, ws)
	}
	return auto.SelectStack(ctx, t.stack, ws)
}

// preselected is a workspace whose stack is known to exist: every command the Automation API
// runs on a stack names it (--stack), so `pulumi stack select` first would only start the CLI
// once more, a fifth of an unchanged preview's time.
type preselected struct{ auto.Workspace }

func (preselected) SelectStack(context.Context, string) error { return nil }

// inFileBackend tells whether stack ("organization/<project>/<name>") exists in the local file
// backend at backend, where the CLI keeps it as .pulumi/stacks/<project>/<name>.json (gzipped
// with PULUMI_SELF_MANAGED_STATE_GZIP). Other backends are asked through the CLI.
func inFileBackend(backend, project, stack string) bool {
	root, ok := strings.CutPrefix(backend, "file://")
	if !ok {
		return false
	}
	name := stack[strings.LastIndex(stack, "/")+1:]
	for _, ext := range []string{".json", ".json.gz"} {
		if _, err := os.Stat(filepath.Join(root, ".pulumi", "stacks", project, name+ext)); err == nil {
			return true
		}
	}
	return false
}

// generationOutput is the stack output that records the generation of the manifest an up
// deployed; status compares it with the manifest's generation now.
const generationOutput = "clusterplane_generation"

// generation identifies a manifest's content: the first 12 hex digits of the SHA-256 of its
// target (the manifest, without provider credentials) in deterministic protobuf form.
func generation(in proto.Message) string {
	data, err := proto.MarshalOptions{Deterministic: true}.Marshal(stackinput.Target(in))
	if err != nil {
		return ""
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:6])
}

// pulumiCommand finds the Pulumi CLI, which the Automation API drives, and checks its version.
func pulumiCommand() (auto.PulumiCommand, error) {
	cmd, err := findCLI()
	if err != nil {
		return nil, err
	}
	if v := cmd.Version(); v.LT(minimumPulumi) {
		return nil, errors.Errorf("the Pulumi CLI on PATH is %s; clusterplane needs %s or newer", v, minimumPulumi)
	}
	return cmd, nil
}

// backendURL is PULUMI_BACKEND_URL, else a local file backend under the user's config folder; a
// passphrase for the stack's secrets must be set before anything runs.
func backendURL() (string, error) {
	if os.Getenv("PULUMI_CONFIG_PASSPHRASE") == "" && os.Getenv("PULUMI_CONFIG_PASSPHRASE_FILE") == "" {
		return "", errors.New("set PULUMI_CONFIG_PASSPHRASE (or PULUMI_CONFIG_PASSPHRASE_FILE): the stacks' secrets " +
			"(API tokens, kubeconfigs) are encrypted with it, and every later command needs the same one")
	}
	if url := os.Getenv("PULUMI_BACKEND_URL"); url != "" {
		return url, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", errors.Wrap(err, "find the folder for the local state")
	}
	state := filepath.Join(dir, "clusterplane", "state")
	if err := os.MkdirAll(state, 0o700); err != nil {
		return "", errors.Wrap(err, "create the folder for the local state")
	}
	return "file://" + state, nil
}

// signalContext is cancelled on Ctrl-C, so that the engine stops cleanly, and bounded in time.
func signalContext() (context.Context, context.CancelFunc) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	ctx, cancel := context.WithTimeout(ctx, stackTimeout)
	return ctx, func() { cancel(); stop() }
}

// replacing tells whether an engine change summary replaces anything.
func replacing(summary map[apitype.OpType]int) bool {
	return summary[apitype.OpReplace] > 0 || summary[apitype.OpCreateReplacement] > 0 || summary[apitype.OpDeleteReplaced] > 0
}

// protectedReplacement tells whether a failed operation is the engine's refusal to replace or
// delete a protected resource: the Automation API's error says only that the command failed, so
// the engine's own words are read from the operation's output.
func protectedReplacement(err error, output string) bool {
	return err != nil && (strings.Contains(output, "unable to replace resource") ||
		strings.Contains(output, "unable to delete resource") || strings.Contains(output, "marked for protection") ||
		strings.Contains(output, "because it is protected"))
}

func (a *app) previewCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "preview FILE...",
		Short: "Show what deploying manifests would change, on the real Pulumi engine",
		Long: `preview runs each manifest's module in this process through Pulumi's Automation API (the
Pulumi CLI must be on PATH) against its stack, <kind program>/<name>-<env>, and prints the
engine's plan. The state lives at PULUMI_BACKEND_URL, or in a local file backend under your config
folder; PULUMI_CONFIG_PASSPHRASE encrypts its secrets.

It exits 0, or 3 when something would be replaced or the engine refuses a change (a protected
cluster), 1 for invalid input or a failed preview.`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: manifestFiles,
	}
	stack := cmd.Flags().String("stack", "", "the stack to use, for one file, instead of <name>-<env>")
	parallel := cmd.Flags().Int("parallel", 4, "stacks run at once; a stack waits for the stacks it references")
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		targets, err := a.stackTargets(files, *stack)
		if err != nil {
			return err
		}
		a.fleet(targets, *parallel, false, func(ctx context.Context, t target, w io.Writer) (string, error) {
			s, err := a.workspaceFor(ctx, t, true)
			if err != nil {
				return "", err
			}
			changes, protected, err := previewStack(ctx, s, w)
			switch {
			case protected:
				a.raise(program.ExitBlocked)
				return "refused: would replace or delete a protected cluster (deletionProtection)", nil
			case err != nil:
				return "", err
			case replacing(changes):
				a.raise(program.ExitBlocked)
				return "replaces: " + summary(changes), nil
			}
			return summary(changes), nil
		})
		return nil
	}
	return cmd
}

func (a *app) upCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "up FILE...",
		Short: "Deploy manifests on the real Pulumi engine",
		Long: `up deploys each manifest to its stack (see preview), each after the stacks it references, with
up to --parallel at once. A change that replaces a resource needs --yes; so does every deployment
without a terminal. It ends with a table of what was done, skipped and failed. It exits 0, 3 when
a replacement was not confirmed or was refused, 1 when a deployment failed or was skipped.`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: manifestFiles,
	}
	yes := cmd.Flags().Bool("yes", false, "deploy without asking, replacements included (for CI)")
	stack := cmd.Flags().String("stack", "", "the stack to use, for one file, instead of <name>-<env>")
	parallel := cmd.Flags().Int("parallel", 4, "stacks run at once; a stack waits for the stacks it references")
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		targets, err := a.stackTargets(files, *stack)
		if err != nil {
			return err
		}
		a.fleet(targets, *parallel, false, func(ctx context.Context, t target, w io.Writer) (string, error) {
			return a.up(ctx, t, *yes, w)
		})
		return nil
	}
	return cmd
}

// previewStack previews the stack, its progress written to w: the engine's changes, or protected
// when the engine refuses to replace or delete a protected cluster.
func previewStack(ctx context.Context, s auto.Stack, w io.Writer) (changes map[apitype.OpType]int, protected bool, err error) {
	var progress strings.Builder
	res, err := s.Preview(ctx, optpreview.ProgressStreams(w, &progress))
	if protectedReplacement(err, progress.String()) {
		return nil, true, nil
	}
	if err != nil {
		return nil, false, err
	}
	return res.ChangeSummary, false, nil
}

// up deploys one target: a preview first, so that a replacement is never deployed unasked.
func (a *app) up(ctx context.Context, t target, yes bool, progressTo io.Writer) (string, error) {
	s, err := a.workspaceFor(ctx, t, true)
	if err != nil {
		return "", err
	}
	if err := refusePendingCreates(ctx, s); err != nil {
		return "", err
	}
	if !yes {
		changes, protected, err := previewStack(ctx, s, io.Discard)
		switch {
		case protected:
			a.raise(program.ExitBlocked)
			return "refused: replaces a protected cluster", nil
		case err != nil:
			return "", err
		}
		// Without a terminal nothing deploys unasked; on one, only a replacement is asked about.
		if !isTerminal(a.stdin) || replacing(changes) && !a.confirm(fmt.Sprintf("%s: %s. Deploy?", t.file, summary(changes))) {
			a.raise(program.ExitBlocked)
			return "not confirmed (use --yes)", nil
		}
	}
	res, err := s.Up(ctx, optup.ProgressStreams(progressTo))
	if err != nil {
		return "", err
	}
	changes := map[apitype.OpType]int{}
	if res.Summary.ResourceChanges != nil {
		for op, n := range *res.Summary.ResourceChanges {
			changes[apitype.OpType(op)] = n
		}
	}
	return "done: " + summary(changes), nil
}

func (a *app) refreshCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "refresh FILE...",
		Short: "Read each manifest's resources back from the cloud into its stack",
		Long: `refresh reads every resource of each manifest's stack from the cloud and records what it finds
(an autoscaled node count, a patch DigitalOcean upgraded to, a console edit). It changes nothing in
the cloud; the next up undoes what the manifest manages and leaves what the cloud owns.

A resource an interrupted up was creating (status says so) is recorded with its id in the cloud
with --import-pending-create, or forgotten with --clear-pending-creates when the cloud has none.`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: manifestFiles,
	}
	imports := cmd.Flags().StringArray("import-pending-create", nil,
		"[URN=]ID: the cloud's id of a resource an interrupted up was creating (URN= when several are pending)")
	clearPending := cmd.Flags().Bool("clear-pending-creates", false, "forget the resources an interrupted up was creating: the cloud has none")
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		targets := a.loadTargets(files, "")
		if (len(*imports) > 0 || *clearPending) && len(targets) > 1 {
			return errors.New("--import-pending-create and --clear-pending-creates name one file's stack")
		}
		ctx, cancel := signalContext()
		defer cancel()
		for _, t := range targets {
			s, err := a.workspaceFor(ctx, t, false)
			opts := []optrefresh.Option{optrefresh.ProgressStreams(a.stderr)}
			if err == nil && len(*imports) > 0 {
				err = importPending(ctx, s, *imports)
			}
			if *clearPending {
				opts = append(opts, optrefresh.ClearPendingCreates())
			}
			if err == nil {
				_, err = s.Refresh(ctx, opts...)
			}
			if err != nil {
				a.fail(t, err)
				continue
			}
			fmt.Fprintf(a.stdout, "%s: refreshed %s/%s\n", t.file, t.project, t.stack)
		}
		return nil
	}
	return cmd
}

func (a *app) driftCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "drift FILE...",
		Short: "Tell whether the cloud has drifted from each manifest, changing nothing",
		Long: `drift reads each manifest's resources from the cloud, in memory only, and previews the manifest
against them. Drift the cloud owns by design (an autoscaler's node count, auto-upgrade patches) is
ignored by the modules and reads as none; anything else the next up would put back is drift.

It changes nothing, and exits 0 without drift, 3 with drift, 1 when it cannot tell.`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: manifestFiles,
	}
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		targets := a.loadTargets(files, "")
		ctx, cancel := signalContext()
		defer cancel()
		for _, t := range targets {
			s, err := a.workspaceFor(ctx, t, false)
			if err != nil {
				a.fail(t, err)
				continue
			}
			stream := make(chan events.EngineEvent)
			fields := make(chan []fieldDrift, 1)
			go func() { fields <- driftedFields(t.kind.Name, stream) }()
			res, err := s.Preview(ctx, optpreview.Refresh(), optpreview.ProgressStreams(a.stderr), optpreview.EventStreams(stream))
			drifted := <-fields
			if err != nil {
				a.fail(t, err)
				continue
			}
			if changes := changed(res.ChangeSummary); changes != "" {
				fmt.Fprintf(a.stdout, "%s: drifted: the next up would %s\n", t.file, changes)
				for _, f := range drifted {
					fmt.Fprintf(a.stdout, "  %s: the cloud has %s, the manifest %s\n", f.field, show(f.live), show(f.manifest))
				}
				a.raise(program.ExitBlocked)
				continue
			}
			fmt.Fprintf(a.stdout, "%s: no drift\n", t.file)
		}
		return nil
	}
	return cmd
}

// fieldDrift is a manifest field the cloud disagrees with, and both values (secrets "[secret]").
type fieldDrift struct {
	field          string
	live, manifest any
}

// driftedFields reads a preview's events for the properties the next up would change and names
// the manifest fields behind them (pkg/effects knows which field is sent as which property).
func driftedFields(kind string, stream <-chan events.EngineEvent) []fieldDrift {
	table := effects.For(kind)
	seen := map[string]bool{}
	var out []fieldDrift
	for ev := range stream {
		pre := ev.ResourcePreEvent
		if pre == nil || table == nil || pre.Metadata.Op == apitype.OpSame || pre.Metadata.Op == apitype.OpRefresh {
			continue
		}
		for _, path := range diffPaths(pre) {
			names := table.Fields(pre.Metadata.Type, path)
			if len(names) == 0 {
				names = []string{pre.Metadata.Type + " " + path}
			}
			field := strings.Join(names, " or ")
			if seen[field] {
				continue
			}
			seen[field] = true
			out = append(out, fieldDrift{field: field, live: value(pre.Metadata.Old, path), manifest: value(pre.Metadata.New, path)})
		}
	}
	return out
}

// diffPaths are the property paths a step changes, sorted: the detailed diff's when the provider
// gives one (finer: nodePool.nodeCount rather than nodePool), else the changed properties.
func diffPaths(pre *apitype.ResourcePreEvent) []string {
	paths := slices.Clone(pre.Metadata.Diffs)
	if len(pre.Metadata.DetailedDiff) > 0 {
		paths = slices.Collect(maps.Keys(pre.Metadata.DetailedDiff))
	}
	sort.Strings(paths)
	return paths
}

// changed says the operations of a change summary that change something, "" when none does.
func changed(summary map[apitype.OpType]int) string {
	var parts []string
	for op, n := range summary {
		if n > 0 && op != apitype.OpSame && op != apitype.OpRead && op != apitype.OpRefresh {
			parts = append(parts, fmt.Sprintf("%s %d", op, n))
		}
	}
	sort.Strings(parts)
	return strings.Join(parts, ", ")
}

func (a *app) destroyCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "destroy FILE...",
		Short: "Destroy the stacks of manifests on the real Pulumi engine",
		Long: `destroy deletes every resource of each manifest's stack. A protected cluster (deletionProtection,
on by default) is refused by the engine: deploy deletionProtection: false first. It needs --yes.`,
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: manifestFiles,
	}
	yes := cmd.Flags().Bool("yes", false, "destroy without asking")
	parallel := cmd.Flags().Int("parallel", 4, "stacks destroyed at once; a stack goes before the stacks it references")
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		targets := a.loadTargets(files, "")
		if len(targets) > 0 && !*yes {
			return errors.New("destroy deletes clusters and their workloads: add --yes")
		}
		a.fleet(targets, *parallel, true, func(ctx context.Context, t target, w io.Writer) (string, error) {
			var progress strings.Builder
			s, err := a.workspaceFor(ctx, t, false)
			if err == nil {
				err = refusePendingCreates(ctx, s)
			}
			if err == nil {
				_, err = s.Destroy(ctx, optdestroy.ProgressStreams(w, &progress))
			}
			if protectedReplacement(err, progress.String()) {
				a.raise(program.ExitBlocked)
				return "refused: the cluster is protected (deletionProtection); deploy deletionProtection: false first", nil
			}
			if err != nil {
				return "", err
			}
			return "destroyed", nil
		})
		return nil
	}
	return cmd
}

// status is one manifest's stack as `status -o json` shows it.
type status struct {
	File  string `json:"file"`
	Stack string `json:"stack"`
	// LastUpdate is the last operation's kind, result and end time; empty for a new stack.
	LastUpdate *update `json:"lastUpdate"`
	// Conditions are Ready (the last update succeeded) with a reason and message.
	Conditions []condition `json:"conditions"`
	// Generation identifies the manifest now; ObservedGeneration the one the last successful up
	// deployed ("" when none did).
	Generation         string `json:"generation"`
	ObservedGeneration string `json:"observedGeneration"`
	// Outputs are the stack's outputs, secrets left out.
	Outputs map[string]any `json:"outputs"`
}

type update struct {
	Kind   string `json:"kind"`
	Result string `json:"result"`
	Ended  string `json:"ended"`
}

type condition struct {
	Type    string `json:"type"`
	Status  string `json:"status"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

func (a *app) statusCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:               "status FILE...",
		Short:             "Show each manifest's stack: its last update, whether it is ready, its outputs",
		Args:              cobra.MinimumNArgs(1),
		ValidArgsFunction: manifestFiles,
	}
	output := outputFlag(cmd)
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		targets := a.loadTargets(files, "")
		ctx, cancel := signalContext()
		defer cancel()
		var all []status
		for _, t := range targets {
			st, err := a.status(ctx, t)
			if err != nil {
				a.fail(t, err)
				continue
			}
			all = append(all, st)
		}
		if *output == "json" {
			enc := json.NewEncoder(a.stdout)
			enc.SetIndent("", "  ")
			return errors.Wrap(enc.Encode(all), "write status")
		}
		for _, st := range all {
			fmt.Fprintf(a.stdout, "%s\t%s\n", st.File, st.Stack)
			for _, c := range st.Conditions {
				fmt.Fprintf(a.stdout, "  %s=%s\t%s: %s\n", c.Type, c.Status, c.Reason, c.Message)
			}
			for name, v := range st.Outputs {
				fmt.Fprintf(a.stdout, "  %s: %v\n", name, v)
			}
		}
		return nil
	}
	return cmd
}

func (a *app) status(ctx context.Context, t target) (status, error) {
	st := status{File: t.file, Stack: t.project + "/" + t.stack, Generation: generation(t.input), Outputs: map[string]any{}}
	s, err := a.workspaceFor(ctx, t, false)
	if err != nil {
		if auto.IsSelectStack404Error(err) {
			st.Conditions = []condition{{Type: "Ready", Status: "False", Reason: "NotDeployed", Message: "the stack does not exist yet"}}
			return st, nil
		}
		return st, err
	}
	history, err := s.History(ctx, 1, 1)
	if err != nil {
		return st, errors.Wrap(err, "read the stack's history")
	}
	ready := condition{Type: "Ready", Status: "False", Reason: "NotDeployed", Message: "the stack has no update yet"}
	if len(history) > 0 {
		h := history[0]
		ended := ""
		if h.EndTime != nil {
			ended = *h.EndTime
		}
		st.LastUpdate = &update{Kind: h.Kind, Result: h.Result, Ended: ended}
		if h.Result == "succeeded" && h.Kind != "destroy" {
			ready = condition{Type: "Ready", Status: "True", Reason: "Deployed", Message: "the last " + h.Kind + " succeeded"}
		} else {
			ready = condition{Type: "Ready", Status: "False", Reason: "Last" + strings.ToUpper(h.Result[:1]) + h.Result[1:],
				Message: "the last " + h.Kind + " " + h.Result}
		}
	}
	outputs, err := s.Outputs(ctx)
	if err != nil {
		return st, errors.Wrap(err, "read the stack's outputs")
	}
	for name, o := range outputs {
		switch {
		case name == generationOutput:
			st.ObservedGeneration, _ = o.Value.(string)
		case !o.Secret:
			st.Outputs[name] = o.Value
		}
	}
	if ready.Status == "True" && st.ObservedGeneration != st.Generation {
		ready = condition{Type: "Ready", Status: "False", Reason: "ManifestChanged",
			Message: "the manifest changed since the last up (generation " + st.ObservedGeneration + "); run up"}
	}
	drifted := condition{Type: "Drifted", Status: "Unknown", Reason: "PendingCreates", Message: "see Ready"}
	if creates, err := pendingCreates(ctx, s); err != nil {
		return st, err
	} else if len(creates) > 0 {
		ready = condition{Type: "Ready", Status: "False", Reason: "PendingCreates", Message: pendingAdvice(creates, t)}
	} else {
		drifted = a.drifted(ctx, s)
	}
	st.Conditions = []condition{ready, drifted}
	return st, nil
}

// drifted previews the stack against the cloud, in memory, as drift does.
func (a *app) drifted(ctx context.Context, s auto.Stack) condition {
	res, err := s.Preview(ctx, optpreview.Refresh())
	if err != nil {
		return condition{Type: "Drifted", Status: "Unknown", Reason: "PreviewFailed", Message: "the cloud could not be compared: " +
			strings.SplitN(err.Error(), "\n", 2)[0]}
	}
	if changes := changed(res.ChangeSummary); changes != "" {
		return condition{Type: "Drifted", Status: "True", Reason: "ChangesPending", Message: "the next up would " + changes}
	}
	return condition{Type: "Drifted", Status: "False", Reason: "InSync", Message: "the cloud matches the manifest"}
}

func (a *app) kubeconfigCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kubeconfig FILE",
		Short: "Print a deployed cluster's kubeconfig, e.g. KUBECONFIG=<(clusterplane kubeconfig prod.yaml) kubectl get nodes",
		Args:  cobra.ExactArgs(1),
	}
	cmd.RunE = func(_ *cobra.Command, files []string) error {
		targets := a.loadTargets(files, "")
		if len(targets) == 0 {
			return nil
		}
		t := targets[0]
		ctx, cancel := signalContext()
		defer cancel()
		s, err := a.workspaceFor(ctx, t, false)
		if err != nil {
			a.fail(t, err)
			return nil
		}
		outputs, err := s.Outputs(ctx)
		if err != nil {
			a.fail(t, err)
			return nil
		}
		if o, ok := outputs["kubeconfig"]; ok {
			_, err := fmt.Fprint(a.stdout, o.Value)
			return errors.Wrap(err, "write the kubeconfig")
		}
		if o, ok := outputs["kubeconfig_b64"]; ok {
			text, _ := o.Value.(string)
			data, err := base64.StdEncoding.DecodeString(text)
			if err != nil {
				a.fail(t, errors.New("the stack's kubeconfig_b64 is not base64"))
				return nil
			}
			_, err = a.stdout.Write(data)
			return errors.Wrap(err, "write the kubeconfig")
		}
		a.fail(t, errors.Errorf("%s is a %s: it has no kubeconfig (or the stack is not deployed)", t.file, t.kind.Name))
		return nil
	}
	return cmd
}

// fail prints a target's failure, never with a secret: errors from the engine name resources
// and fields, and the stack inputs' tokens are secrets to it.
func (a *app) fail(t target, err error) {
	a.outMu.Lock()
	fmt.Fprintf(a.stderr, "%s (%s): %s\n", t.file, t.key(), describe(err, t))
	a.outMu.Unlock()
	a.raise(program.ExitInvalid)
}

// summary says an engine change summary in words: "2 create, 1 update".
func summary(changes map[apitype.OpType]int) string {
	var parts []string
	for _, op := range []apitype.OpType{apitype.OpCreate, apitype.OpUpdate, apitype.OpReplace, apitype.OpDelete, apitype.OpSame} {
		if n := changes[op]; n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", n, op))
		}
	}
	if len(parts) == 0 {
		return "no changes"
	}
	return strings.Join(parts, ", ")
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	info, err := f.Stat()
	return err == nil && info.Mode()&os.ModeCharDevice != 0
}

// confirm asks a yes/no question on the terminal.
func (a *app) confirm(question string) bool {
	// Stacks deploy in parallel: one question, and its answer, at a time.
	a.askMu.Lock()
	defer a.askMu.Unlock()
	fmt.Fprintf(a.stderr, "%s [y/N] ", question)
	var answer string
	_, _ = fmt.Fscanln(a.stdin, &answer)
	return strings.EqualFold(answer, "y") || strings.EqualFold(answer, "yes")
}
