package autostack

import (
	"context"
	"io"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/redact"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/events"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optdestroy"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/opthistory"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optpreview"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optrefresh"
	"github.com/pulumi/pulumi/sdk/v3/go/auto/optup"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// stackOf is one stack of the backend, with its inline program.
type stackOf struct {
	backend        *Backend
	project, stack string
	program        pulumi.RunFunc
	// transform applies to every resource the program registers during the running operation.
	transform pulumi.ResourceTransform
	auto      auto.Stack
	// dir is the workspace's folder, removed by Close.
	dir string
	// read is the state State read last from the backend's storage, which the next State
	// returns without parsing again while the stored bytes are the same: an up reads the state
	// before its checks, again before a refresh and after a preview, and a checkpoint's parse is
	// most of the cost of each read.
	read stateRead
	// keepsHistory: Create made the stack where a stack of its name had left a history (its
	// checkpoint lost or removed by hand). Remove then deletes the checkpoint Create wrote, and
	// not that history, which `pulumi stack rm` would delete with it: it is what a person
	// recovers the stack from. kept are the checkpoint's files there were before (a .bak of the
	// lost stack's), which Remove leaves too.
	keepsHistory bool
	kept         []string
}

var _ stackstate.Stack = (*stackOf)(nil)

// run is the workspace's inline program: the target's, under the operation's transform.
func (s *stackOf) run(ctx *pulumi.Context) error {
	if s.transform != nil {
		if err := ctx.RegisterResourceTransform(s.transform); err != nil {
			return errors.Wrap(err, "register the transform")
		}
	}
	return s.program(ctx)
}

// Close removes the stack's workspace folder: its Pulumi.yaml and settings, the encryption salt
// among them. The stack is not to be used afterwards.
func (s *stackOf) Close() error {
	if s.dir == "" {
		return nil
	}
	err := os.RemoveAll(s.dir)
	s.dir = ""
	return errors.Wrap(err, "remove the stack's workspace")
}

// Name is the stack's name as the Pulumi CLI takes it (--stack): a self-managed backend keeps
// every stack in its one organization, "organization".
func (s *stackOf) Name() string {
	if s.backend.selfManaged() {
		return auto.FullyQualifiedStackName("organization", s.project, s.stack)
	}
	return s.project + "/" + s.stack
}

// CancelCommand is the command that removes the stack's lock, in backticks: the Pulumi CLI needs
// the backend clusterplane uses, which its default local one is not.
// A password in the URL is never printed: the command then says where it goes.
func (s *stackOf) CancelCommand() string {
	command := "pulumi cancel --stack " + s.Name() + " --yes"
	if s.backend.url != "" && s.backend.url != envBackend() {
		url := s.backend.redactor().String(s.backend.url)
		if url == s.backend.url {
			return "`" + BackendEnv + "=" + url + " " + command + "`"
		}
		return "`" + BackendEnv + "='" + url + "' " + command + "` (with the backend's password in place of " + redact.Mask + ")"
	}
	return "`" + command + "` (same " + BackendEnv + ")"
}

// progress is where the engine's progress of an operation goes: w, redacted, since the engine
// prints the backend's URL when it cannot open it, with the recorded manifest's output folded.
// Its last line is written by Flush, which the operation calls when the engine is done.
func (s *stackOf) progress(w io.Writer) *progressWriter {
	fold := foldManifest(w)
	return &progressWriter{Writer: redact.NewWriter(hints{fold}, s.backend.redactor()), fold: fold}
}

// progressWriter redacts, says the engine's advice in clusterplane's words, then folds.
type progressWriter struct {
	*redact.Writer
	fold *folding
}

// Flush writes the redacted last line, then what the fold still holds.
func (p *progressWriter) Flush() error {
	err := p.Writer.Flush()
	if ferr := p.fold.Flush(); err == nil {
		err = ferr
	}
	return err
}

// Preview previews the stack's program.
func (s *stackOf) Preview(ctx context.Context, o stackstate.Options) (stackstate.Result, error) {
	c := collect()
	opts := []optpreview.Option{optpreview.EventStreams(c.events)}
	if o.Progress != nil {
		progress := s.progress(o.Progress)
		defer progress.Flush()
		opts = append(opts, optpreview.ProgressStreams(progress))
	}
	if o.Refresh {
		opts = append(opts, optpreview.Refresh())
	}
	s.transform = o.Transform
	_, err := s.auto.Preview(ctx, opts...)
	s.transform = nil
	res := c.wait(err)
	return res, classify(ctx, "preview", err, c.cause(), s.backend, s)
}

// Up deploys the stack's program.
func (s *stackOf) Up(ctx context.Context, o stackstate.Options) (stackstate.Result, error) {
	c := collect()
	opts := []optup.Option{optup.EventStreams(c.events)}
	if o.Progress != nil {
		progress := s.progress(o.Progress)
		defer progress.Flush()
		opts = append(opts, optup.ProgressStreams(progress))
	}
	if o.Refresh {
		opts = append(opts, optup.Refresh())
	}
	if o.Message != "" {
		opts = append(opts, optup.Message(o.Message))
	}
	s.transform = o.Transform
	_, err := s.auto.Up(withResultUnread(ctx), opts...)
	s.transform = nil
	res := c.wait(err)
	return res, classify(ctx, "update", err, c.cause(), s.backend, s)
}

// Refresh reads the stack's resources back from the cloud.
func (s *stackOf) Refresh(ctx context.Context, o stackstate.Options) (stackstate.Result, error) {
	c := collect()
	opts := []optrefresh.Option{optrefresh.EventStreams(c.events)}
	if o.Progress != nil {
		progress := s.progress(o.Progress)
		defer progress.Flush()
		opts = append(opts, optrefresh.ProgressStreams(progress))
	}
	if o.ClearPendingCreates {
		opts = append(opts, optrefresh.ClearPendingCreates())
	}
	_, err := s.auto.Refresh(withResultUnread(ctx), opts...)
	res := c.wait(err)
	return res, classify(ctx, "refresh", err, c.cause(), s.backend, s)
}

// Destroy deletes the stack's resources.
func (s *stackOf) Destroy(ctx context.Context, o stackstate.Options) (stackstate.Result, error) {
	c := collect()
	opts := []optdestroy.Option{optdestroy.EventStreams(c.events)}
	if o.Progress != nil {
		progress := s.progress(o.Progress)
		defer progress.Flush()
		opts = append(opts, optdestroy.ProgressStreams(progress))
	}
	_, err := s.auto.Destroy(withResultUnread(ctx), opts...)
	res := c.wait(err)
	return res, classify(ctx, "destroy", err, c.cause(), s.backend, s)
}

// Outputs are the stack's outputs, secrets among them.
func (s *stackOf) Outputs(ctx context.Context) (map[string]stackstate.Output, error) {
	outputs, err := s.auto.Outputs(ctx)
	if err != nil {
		return nil, classify(ctx, "read the stack's outputs", err, "", s.backend, s)
	}
	out := make(map[string]stackstate.Output, len(outputs))
	for name, o := range outputs {
		out[name] = stackstate.Output{Value: o.Value, Secret: o.Secret}
	}
	return out, nil
}

// State reads the stack's state: from the backend's storage where it is read here (readState),
// which starts no CLI (`pulumi stack export` is a second of a process for each read, and an up
// reads the state before and after the engine), else through the CLI.
func (s *stackOf) State(ctx context.Context) (stackstate.State, error) {
	if st, ok := s.backend.readState(ctx, s.project, s.stack, &s.read); ok {
		return st, nil
	}
	raw, err := s.auto.Export(ctx)
	if err != nil {
		return stackstate.State{}, classify(ctx, "read the stack's state", err, "", s.backend, s)
	}
	return stackstate.StateOf(raw)
}

// Import replaces the stack's state.
func (s *stackOf) Import(ctx context.Context, state apitype.UntypedDeployment) error {
	return classify(ctx, "write the stack's state", s.auto.Import(ctx, state), "", s.backend, s)
}

// LastUpdate is the stack's latest update or destroy: refreshes and imports leave what was
// deployed as it was.
func (s *stackOf) LastUpdate(ctx context.Context) (*stackstate.Update, error) {
	if s.backend != nil {
		// Read from the backend's history where it is read here, as the CLI would read it.
		if last, err := s.backend.LastUpdate(ctx, s.project, s.stack); err == nil {
			return last, nil
		}
	}
	history, err := s.auto.History(ctx, 10, 1, opthistory.ShowSecrets(false))
	if err != nil {
		return nil, classify(ctx, "read the stack's history", err, "", s.backend, s)
	}
	for _, h := range history {
		if h.Kind != "update" && h.Kind != "destroy" {
			continue
		}
		u := updateOf(h)
		return &u, nil
	}
	return nil, nil
}

// Remove deletes the stack from the backend.
func (s *stackOf) Remove(ctx context.Context) error {
	if s.keepsHistory {
		return s.backend.removeCheckpoint(ctx, s.project, s.stack, s.kept)
	}
	return classify(ctx, "remove the stack", s.auto.Workspace().RemoveStack(ctx, s.stack), "", s.backend, s)
}

// collector reads an operation's engine events into its result.
type collector struct {
	events chan events.EngineEvent
	done   chan struct{}
	mu     sync.Mutex
	res    stackstate.Result
	// errors are the engine's error diagnostics.
	errors []diagnostic
}

// diagnostic is one error the engine reported, and the resource it is about ("" for the stack).
type diagnostic struct{ resource, message string }

func collect() *collector {
	c := &collector{events: make(chan events.EngineEvent), done: make(chan struct{}),
		res: stackstate.Result{Changes: map[string]int{}}}
	go func() {
		defer close(c.done)
		for ev := range c.events {
			c.add(ev)
		}
	}()
	return c
}

// wait is the result once the Automation API has closed the event stream. When the operation
// failed before the CLI opened the stream (a locked stack), the API never closes it: then what
// arrived within a moment is all there is.
func (c *collector) wait(err error) stackstate.Result {
	if err == nil {
		<-c.done
	} else {
		select {
		case <-c.done:
		case <-time.After(2 * time.Second):
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	res := c.res
	res.Steps = append([]stackstate.Step(nil), c.res.Steps...)
	res.ReadGone = append([]string(nil), c.res.ReadGone...)
	return res
}

func (c *collector) add(ev events.EngineEvent) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case ev.ResourcePreEvent != nil:
		m := ev.ResourcePreEvent.Metadata
		if m.Type == string(resource.RootStackType) && m.Old != nil {
			c.res.Previous = m.Old.Outputs
		}
		step := stackstate.Step{URN: m.URN, Type: m.Type, Name: resource.URN(m.URN).Name(), Action: string(m.Op), Paths: paths(m)}
		if m.Old != nil {
			step.Old, step.Live = m.Old.Inputs, m.Old.Outputs
		}
		if m.New != nil {
			step.New = m.New.Inputs
		}
		switch m.Op {
		case apitype.OpSame, apitype.OpRead:
			return
		case apitype.OpRefresh:
			if len(step.Paths) == 0 {
				return
			}
		}
		c.res.Steps = append(c.res.Steps, step)
	case ev.ResOutputsEvent != nil:
		// A resource done with and nothing left of it: a read that found it gone (in an up that
		// refreshes, the step stays a refresh; in a refresh it turns a delete), or a delete.
		m := ev.ResOutputsEvent.Metadata
		if m.Old != nil && m.New == nil && (m.Op == apitype.OpRefresh || m.Op == apitype.OpDelete) {
			c.res.ReadGone = append(c.res.ReadGone, m.URN)
		}
	case ev.SummaryEvent != nil:
		for op, n := range ev.SummaryEvent.ResourceChanges {
			c.res.Changes[string(op)] = n
		}
	case ev.DiagnosticEvent != nil && ev.DiagnosticEvent.Severity == "error":
		d := diagnostic{message: ev.DiagnosticEvent.Message}
		if urn := resource.URN(ev.DiagnosticEvent.URN); urn != "" && urn.Type() != resource.RootStackType {
			d.resource = string(urn.Type()) + " " + urn.Name()
		}
		c.errors = append(c.errors, d)
	}
}

// cause is the engine's error in its own words, each once: the resources' errors (the cloud's
// answer), the stack's general ones ("update failed") only when there are no others.
func (c *collector) cause() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var specific, general []string
	seen := map[string]bool{}
	for _, d := range c.errors {
		message := strings.Join(strings.Fields(cleanDiagnostic(d.message)), " ")
		if message == "" || seen[d.resource+message] {
			continue
		}
		seen[d.resource+message] = true
		if d.resource == "" {
			general = append(general, message)
			continue
		}
		specific = append(specific, d.resource+": "+message)
	}
	if len(specific) > 0 {
		return strings.Join(specific, "; ")
	}
	return strings.Join(general, "; ")
}

// paths are the properties a step changes, sorted: the detailed diff's when the provider gives
// one (finer: nodePool.nodeCount rather than nodePool), else the changed properties.
func paths(m apitype.StepEventMetadata) []string {
	out := append([]string(nil), m.Diffs...)
	if len(m.DetailedDiff) > 0 {
		out = out[:0]
		for p := range m.DetailedDiff {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}
