// Package deploytest is a fake deploy.Backend: stacks kept in memory whose programs run under
// Pulumi's mocks (pkg/pulumi/mockrun), so that the deploy package and the commands above it are tested
// without the Pulumi engine. Faults and delays come on demand, and every engine call is recorded
// with how many ran at once.
package deploytest

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/pulumi/mockrun"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/common/apitype"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource"
	"github.com/pulumi/pulumi/sdk/v3/go/common/resource/sig"
	"github.com/pulumi/pulumi/sdk/v3/go/common/tokens"
	"github.com/pulumi/pulumi/sdk/v3/go/pulumi"
)

// Backend is the fake backend. Its zero value is not usable: use New.
type Backend struct {
	mu       sync.Mutex
	id       string
	stacks   map[string]*stack
	calls    []string
	running  int
	max      int
	faults   map[string][]error
	delays   map[string]time.Duration
	replaces map[string]bool
	// live are the cloud's resources made outside any stack, by id, for adoption.
	live map[string]map[string]any
	// opened are the handles Open and Create returned, closed or not.
	opened []*handle
	// shared are the stacks each stack keeps its secrets with (Stack.ShareSecretsWith), by key.
	shared map[string]string
	// locks are the stacks whose lock is held (Backend.LockStack), by key; noLock makes the
	// backend one that cannot hold a lock.
	locks  map[string]bool
	noLock bool
}

var _ stackstate.Backend = (*Backend)(nil)

// New is an empty backend.
func New() *Backend {
	return &Backend{stacks: map[string]*stack{}, faults: map[string][]error{}, delays: map[string]time.Duration{},
		replaces: map[string]bool{}, live: map[string]map[string]any{}, shared: map[string]string{},
		locks: map[string]bool{}}
}

// Fail makes the next operation op ("preview", "update", "refresh", "destroy", "export", "open")
// on stack key (<project>/<stack>) fail with err; several calls queue several failures.
func (b *Backend) Fail(key, op string, err error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.faults[key+" "+op] = append(b.faults[key+" "+op], err)
}

// Delay makes every operation op on stack key take d, or until its context ends (it then answers
// deploy.ErrCancelled, as the engine interrupted does).
func (b *Backend) Delay(key, op string, d time.Duration) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.delays[key+" "+op] = d
}

// Replaces makes a change of the input property prop replace its resource, as a provider's
// ForceNew does.
func (b *Backend) Replaces(prop string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.replaces[prop] = true
}

// Live puts a resource with id and inputs into the cloud, outside any stack: a registration that
// imports id starts from them, as Pulumi's import reads the live resource.
func (b *Backend) Live(id string, inputs map[string]any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.live[id] = inputs
}

// Edit changes an input of a resource of stack key behind its back, as a console edit that a
// refresh reads back does.
func (b *Backend) Edit(key, typ, name, prop string, value any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.stacks[key]; ok {
		if r, ok := s.resources[typ+"::"+name]; ok {
			inputs := map[string]any{}
			for k, v := range r.Inputs {
				inputs[k] = v
			}
			inputs[prop] = value
			r.Inputs = inputs
			s.resources[typ+"::"+name] = r
		}
	}
}

// EditRefreshed changes a property of a resource of stack key behind its back as a bridged
// provider's refresh reads it: the cloud's value in the outputs, and in the inputs the value the
// provider derives from its last inputs, which may differ (a set edited in the console).
func (b *Backend) EditRefreshed(key, typ, name, prop string, input, output any) {
	b.Edit(key, typ, name, prop, input)
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.stacks[key]; ok {
		if s.live == nil {
			s.live = map[string]map[string]any{}
		}
		outputs := map[string]any{}
		for k, v := range s.live[typ+"::"+name] {
			outputs[k] = v
		}
		outputs[prop] = output
		s.live[typ+"::"+name] = outputs
	}
}

// EditCloud changes a property of a resource of stack key in the cloud only, as a console edit
// that no refresh has read yet: a preview that reads the cloud first (Options.Refresh) finds it,
// while the stack's state keeps what the last up or refresh recorded.
func (b *Backend) EditCloud(key, typ, name, prop string, value any) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.stacks[key]; ok {
		if s.cloud == nil {
			s.cloud = map[string]map[string]any{}
		}
		if s.cloud[typ+"::"+name] == nil {
			s.cloud[typ+"::"+name] = map[string]any{}
		}
		s.cloud[typ+"::"+name][prop] = value
	}
}

// setPath sets the value at a dotted property path of inputs ("nodePool.size"), copying each
// map on the way so that the stack's own inputs are left as they are.
func setPath(inputs map[string]any, path []string, v any) {
	if len(path) == 1 {
		inputs[path[0]] = v
		return
	}
	inner := map[string]any{}
	if m, ok := inputs[path[0]].(map[string]any); ok {
		for k, e := range m {
			inner[k] = e
		}
	}
	setPath(inner, path[1:], v)
	inputs[path[0]] = inner
}

// UpdateByAnotherOperator records, in stack key's history, an update another operator finished.
func (b *Backend) UpdateByAnotherOperator(key string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.stacks[key]; ok {
		s.history = append(s.history, stackstate.Update{Operation: "update", Result: "succeeded", Ended: "later"})
	}
}

// RecordGeneration sets the generation stack key recorded at its last up, as a release that
// computed it otherwise would have recorded it.
func (b *Backend) RecordGeneration(key, generation string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.stacks[key]; ok {
		out := s.outputs[deploytarget.GenerationOutput]
		out.Value = generation
		s.outputs[deploytarget.GenerationOutput] = out
	}
}

// SetOutput sets stack key's output name to value, as a provider that answered it would: the
// mocks leave what the cloud computes (a cluster's kubeconfig) empty.
func (b *Backend) SetOutput(key, name string, value any, secret bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.stacks[key]; ok {
		s.outputs[name] = mockrun.Output{Value: value, Secret: secret, Known: true}
	}
}

// Pend leaves a create of a resource of typ and name pending on stack key, as a killed up does.
func (b *Backend) Pend(key, typ, name string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if s, ok := b.stacks[key]; ok {
		s.pending = append(s.pending, stackstate.PendingCreate{URN: urn(s, typ, name), Type: typ, Name: name})
	}
}

// Calls are the engine calls made, "op project/stack", in order.
func (b *Backend) Calls() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.calls...)
}

// MaxRunning is the most engine calls that ran at once.
func (b *Backend) MaxRunning() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.max
}

// Resources are the types and names of the resources stack key holds, "type::name", sorted.
func (b *Backend) Resources(key string) []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	s, ok := b.stacks[key]
	if !ok {
		return nil
	}
	var out []string
	for k := range s.resources {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Has tells whether stack key exists.
func (b *Backend) Has(key string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	_, ok := b.stacks[key]
	return ok
}

// Open opens a stack.
func (b *Backend) Open(ctx context.Context, project, name string, program pulumi.RunFunc) (stackstate.Stack, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.fault(project+"/"+name, "open"); err != nil {
		return nil, err
	}
	s, ok := b.stacks[project+"/"+name]
	if !ok {
		return nil, stackstate.ErrNotDeployed
	}
	return b.handle(s, program), nil
}

// handle opens s with program; b.mu must be held.
func (b *Backend) handle(s *stack, program pulumi.RunFunc) *handle {
	h := &handle{s: s, program: program}
	b.opened = append(b.opened, h)
	return h
}

// Unclosed are the stacks opened (or created) and not closed, "project/stack", one per handle.
func (b *Backend) Unclosed() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, h := range b.opened {
		if !h.closed {
			out = append(out, h.key())
		}
	}
	return out
}

// Create creates a stack.
func (b *Backend) Create(ctx context.Context, project, name string, program pulumi.RunFunc) (stackstate.Stack, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	key := project + "/" + name
	s, ok := b.stacks[key]
	if !ok {
		s = &stack{b: b, project: project, name: name, resources: map[string]mockrun.Resource{}}
		b.stacks[key] = s
	}
	return b.handle(s, program), nil
}

// Exists tells whether a stack exists.
func (b *Backend) Exists(ctx context.Context, project, name string) (bool, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.fault(project+"/"+name, "open"); err != nil {
		return false, err
	}
	_, ok := b.stacks[project+"/"+name]
	return ok, nil
}

// fault takes the next failure queued for op on key; b.mu must be held.
func (b *Backend) fault(key, op string) error {
	errs := b.faults[key+" "+op]
	if len(errs) == 0 {
		return nil
	}
	b.faults[key+" "+op] = errs[1:]
	return errs[0]
}

// stack is one fake stack's state.
type stack struct {
	b             *Backend
	project, name string
	resources     map[string]mockrun.Resource // by "type::name"
	outputs       map[string]mockrun.Output
	pending       []stackstate.PendingCreate
	history       []stackstate.Update
	// live are the outputs a refresh read back where EditRefreshed set them, by "type::name".
	live map[string]map[string]any
	// ids are the cloud ids of the resources imported, by "type::name", for their state.
	ids map[string]string
	// cloud are properties the cloud changed that no refresh has read yet (EditCloud), by
	// "type::name": a preview that reads the cloud first sees them, the stack's state does not.
	cloud map[string]map[string]any
	// deadLock names the dead process whose Pulumi lock the stack holds (LeaveDeadLock), "" for none.
	deadLock string
}

// handle is a stack opened with a program.
type handle struct {
	s       *stack
	program pulumi.RunFunc
	// closed tells that Close was called: the handle is not to be used again.
	closed bool
}

// ShareSecretsWith records that the stack keeps its secrets with stack key (SharesSecretsWith);
// a fault queued for op "share" fails it.
func (h *handle) ShareSecretsWith(_ context.Context, key string) error {
	b := h.s.b
	b.mu.Lock()
	defer b.mu.Unlock()
	if err := b.fault(h.key(), "share"); err != nil {
		return err
	}
	b.shared[h.key()] = key
	return nil
}

// SharesSecretsWith is the stack stack key (<project>/<stack>) was last asked to keep its
// secrets with, "" for none.
func (b *Backend) SharesSecretsWith(key string) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.shared[key]
}

func (h *handle) key() string  { return h.s.project + "/" + h.s.name }
func (h *handle) Name() string { return "organization/" + h.key() }

// Stacks are the names of the project's stacks, sorted.
func (b *Backend) Stacks(_ context.Context, project string) ([]string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for _, s := range b.stacks {
		if s.project == project {
			out = append(out, s.name)
		}
	}
	sort.Strings(out)
	return out, nil
}

// call runs an engine call: recorded, counted, delayed and failed as asked.
func (h *handle) call(ctx context.Context, op string) error {
	b := h.s.b
	b.mu.Lock()
	if h.closed {
		b.mu.Unlock()
		return errors.Errorf("%s on stack %s after it was closed", op, h.key())
	}
	b.calls = append(b.calls, op+" "+h.key())
	if h.s.deadLock != "" {
		b.mu.Unlock()
		return &stackstate.LockedError{Cancel: h.CancelCommand()}
	}
	b.running++
	b.max = max(b.max, b.running)
	delay := b.delays[h.key()+" "+op]
	err := b.fault(h.key(), op)
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		b.running--
		b.mu.Unlock()
	}()
	if delay > 0 {
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return errors.Wrap(stackstate.ErrCancelled, ctx.Err().Error())
		}
	}
	return err
}

// run runs the program under mocks: what it would register and export. Pulumi's mocks do not
// call transforms, so diff applies the operation's transform itself.
func (h *handle) run(preview bool) (*mockrun.Result, error) {
	body := h.program
	b := h.s.b
	b.mu.Lock()
	stacks := map[string]map[string]any{}
	for _, s := range b.stacks {
		outs := map[string]any{}
		for name, out := range s.outputs {
			outs[name] = out.Value
		}
		stacks["organization/"+s.project+"/"+s.name] = outs
	}
	b.mu.Unlock()
	return mockrun.Run(body, mockrun.Options{Preview: preview, Stacks: stacks})
}

// diff is what deploying p over the stack's resources does, each registration first through the
// operation's transform (o.Transform).
func (h *handle) diff(p *mockrun.Result, o stackstate.Options) stackstate.Result {
	b := h.s.b
	res := stackstate.Result{Changes: map[string]int{}, Previous: values(h.s.outputs)}
	seen := map[string]bool{}
	for _, r := range p.Resources {
		if r.Type == mockrun.StackReferenceType {
			continue
		}
		k := r.Type + "::" + r.Name
		seen[k] = true
		old, ok := h.s.resources[k]
		if edits := h.s.cloud[k]; ok && o.Refresh && len(edits) > 0 {
			// The preview's read of the cloud finds what changed there since the last refresh.
			inputs := map[string]any{}
			for p, v := range old.Inputs {
				inputs[p] = v
			}
			for p, v := range edits {
				setPath(inputs, strings.Split(p, "."), v)
			}
			old.Inputs = inputs
		}
		step := stackstate.Step{URN: urn(h.s, r.Type, r.Name), Type: r.Type, Name: r.Name, New: r.Inputs}
		if id := importID(r, o.Transform); !ok && id != "" {
			b.mu.Lock()
			live, found := b.live[id]
			if found {
				if h.s.ids == nil {
					h.s.ids = map[string]string{}
				}
				h.s.ids[k] = id
			}
			b.mu.Unlock()
			if found {
				// Imported: the live resource's inputs, then an update to the manifest's.
				res.Changes[string(apitype.OpImport)]++
				// Like a bridged provider's import, the inputs hold what the configuration would set;
				// what only the cloud computes is in the outputs.
				res.Steps = append(res.Steps, stackstate.Step{URN: step.URN, Type: r.Type, Name: r.Name, Action: string(apitype.OpImport), New: live})
				old, ok = mockrun.Resource{Type: r.Type, Name: r.Name, Inputs: live}, true
				step.Live = live
			}
		}
		switch {
		case !ok:
			step.Action = string(apitype.OpCreate)
		default:
			step.Old = old.Inputs
			if outputs, edited := h.s.live[k]; edited && step.Live == nil {
				step.Live = outputs
			}
			step.Paths = changed("", old.Inputs, r.Inputs)
			sort.Strings(step.Paths)
			step.Action = string(apitype.OpSame)
			if len(step.Paths) > 0 {
				step.Action = string(apitype.OpUpdate)
			}
			b.mu.Lock()
			for _, p := range step.Paths {
				if b.replaces[strings.SplitN(p, ".", 2)[0]] {
					step.Action = string(apitype.OpReplace)
				}
			}
			b.mu.Unlock()
		}
		res.Changes[step.Action]++
		if step.Action != string(apitype.OpSame) {
			res.Steps = append(res.Steps, step)
		}
	}
	for k, r := range h.s.resources {
		if !seen[k] {
			res.Changes[string(apitype.OpDelete)]++
			res.Steps = append(res.Steps, stackstate.Step{URN: urn(h.s, r.Type, r.Name), Type: r.Type, Name: r.Name,
				Action: string(apitype.OpDelete), Old: r.Inputs})
		}
	}
	return res
}

// importID is the id a registration imports once transform has seen it, "" for none.
func importID(r mockrun.Resource, transform pulumi.ResourceTransform) string {
	if transform == nil {
		return ""
	}
	result := transform(context.Background(), &pulumi.ResourceTransformArgs{Type: r.Type, Name: r.Name})
	if result == nil || result.Opts.Import == nil {
		return ""
	}
	id, _ := result.Opts.Import.(pulumi.ID)
	return string(id)
}

// refusal is the engine's refusal to replace or delete a protected resource, if res does.
func (h *handle) refusal(res stackstate.Result) error {
	var names []string
	for _, step := range res.Steps {
		if step.Action == string(apitype.OpReplace) || step.Action == string(apitype.OpDelete) {
			if h.s.resources[step.Type+"::"+step.Name].Protect {
				names = append(names, step.Type+" "+step.Name)
			}
		}
	}
	if len(names) > 0 {
		return &stackstate.ProtectedError{Resources: names}
	}
	return nil
}

// programFailed is what the engine's command reports of a program that failed with err: the
// module's refusal of the manifest as the refused change it is, as the real backend reads it
// (stackstate.ModuleRefusal), any other failure as the engine's.
func programFailed(command string, err error) error {
	if refused := stackstate.ModuleRefusal(err.Error()); refused != nil {
		return refused
	}
	return &stackstate.EngineError{Command: command, Cause: err.Error()}
}

func (h *handle) Preview(ctx context.Context, o stackstate.Options) (stackstate.Result, error) {
	if err := h.call(ctx, "preview"); err != nil {
		return stackstate.Result{}, err
	}
	p, err := h.run(true)
	if err != nil {
		return stackstate.Result{}, programFailed("preview", err)
	}
	res := h.diff(p, o)
	return res, h.refusal(res)
}

func (h *handle) Up(ctx context.Context, o stackstate.Options) (stackstate.Result, error) {
	if err := h.call(ctx, "update"); err != nil {
		h.record("update", "failed")
		return stackstate.Result{}, err
	}
	p, err := h.run(false)
	if err != nil {
		h.record("update", "failed")
		return stackstate.Result{}, programFailed("update", err)
	}
	res := h.diff(p, o)
	if err := h.refusal(res); err != nil {
		h.record("update", "failed")
		return res, err
	}
	b := h.s.b
	b.mu.Lock()
	h.s.resources, h.s.live = map[string]mockrun.Resource{}, nil
	if h.s.ids == nil {
		h.s.ids = map[string]string{}
	}
	for _, r := range p.Resources {
		if r.Type != mockrun.StackReferenceType {
			k := r.Type + "::" + r.Name
			h.s.resources[k] = r
			if h.s.ids[k] == "" {
				// What the plan's provider answers a create with, which the outputs report too.
				h.s.ids[k] = r.Name + "-id"
			}
		}
	}
	h.s.outputs = p.Outputs
	b.mu.Unlock()
	h.record("update", "succeeded", o.Message)
	return res, nil
}

func (h *handle) Refresh(ctx context.Context, o stackstate.Options) (stackstate.Result, error) {
	if err := h.call(ctx, "refresh"); err != nil {
		return stackstate.Result{}, err
	}
	if o.ClearPendingCreates {
		h.s.b.mu.Lock()
		h.s.pending = nil
		h.s.b.mu.Unlock()
	}
	h.record("refresh", "succeeded")
	return stackstate.Result{Changes: map[string]int{string(apitype.OpSame): len(h.s.resources)}}, nil
}

func (h *handle) Destroy(ctx context.Context, o stackstate.Options) (stackstate.Result, error) {
	if err := h.call(ctx, "destroy"); err != nil {
		h.record("destroy", "failed")
		return stackstate.Result{}, err
	}
	b := h.s.b
	b.mu.Lock()
	res := stackstate.Result{Changes: map[string]int{string(apitype.OpDelete): len(h.s.resources)}}
	h.s.resources, h.s.outputs = map[string]mockrun.Resource{}, nil
	b.mu.Unlock()
	h.record("destroy", "succeeded")
	return res, nil
}

func (h *handle) Outputs(ctx context.Context) (map[string]stackstate.Output, error) {
	if err := h.call(ctx, "outputs"); err != nil {
		return nil, err
	}
	h.s.b.mu.Lock()
	defer h.s.b.mu.Unlock()
	out := map[string]stackstate.Output{}
	for name, o := range h.s.outputs {
		out[name] = stackstate.Output{Value: o.Value, Secret: o.Secret}
	}
	return out, nil
}

// State is the stack's state as the Pulumi CLI exports it: the root stack with its outputs
// (secrets encrypted), the resources, the pending operations.
func (h *handle) State(ctx context.Context) (stackstate.State, error) {
	if err := h.call(ctx, "export"); err != nil {
		return stackstate.State{}, err
	}
	h.s.b.mu.Lock()
	defer h.s.b.mu.Unlock()
	outputs := map[string]any{}
	for name, o := range h.s.outputs {
		if o.Secret {
			outputs[name] = map[string]any{sig.Key: sig.Secret, "ciphertext": "v1:encrypted"}
			continue
		}
		outputs[name] = o.Value
	}
	resources := []apitype.ResourceV3{{URN: urnOf(h.s, "pulumi:pulumi:Stack", h.s.project+"-"+h.s.name),
		Type: "pulumi:pulumi:Stack", Outputs: outputs}}
	var keys []string
	for k := range h.s.resources {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		r := h.s.resources[k]
		resources = append(resources, apitype.ResourceV3{URN: urnOf(h.s, r.Type, r.Name), Type: tokensType(r.Type),
			ID: resource.ID(h.s.ids[k]), Protect: r.Protect, Inputs: r.Inputs})
	}
	d := apitype.DeploymentV3{Resources: resources}
	for _, p := range h.s.pending {
		d.PendingOperations = append(d.PendingOperations, apitype.OperationV2{Type: apitype.OperationTypeCreating,
			Resource: apitype.ResourceV3{URN: urnOf(h.s, p.Type, p.Name), Type: tokensType(p.Type)}})
	}
	data, err := json.Marshal(d)
	if err != nil {
		return stackstate.State{}, err
	}
	return stackstate.StateOf(apitype.UntypedDeployment{Version: 3, Deployment: data})
}

// Import replaces the state: pending creates recorded with an id join the resources.
func (h *handle) Import(ctx context.Context, state apitype.UntypedDeployment) error {
	if err := h.call(ctx, "import"); err != nil {
		return err
	}
	var d apitype.DeploymentV3
	if err := json.Unmarshal(state.Deployment, &d); err != nil {
		return err
	}
	h.s.b.mu.Lock()
	defer h.s.b.mu.Unlock()
	h.s.pending = nil
	for _, op := range d.PendingOperations {
		h.s.pending = append(h.s.pending, stackstate.PendingCreate{URN: string(op.Resource.URN), Type: string(op.Resource.Type),
			Name: op.Resource.URN.Name()})
	}
	for _, r := range d.Resources {
		k := string(r.Type) + "::" + r.URN.Name()
		if _, ok := h.s.resources[k]; !ok && r.Type != "pulumi:pulumi:Stack" {
			h.s.resources[k] = mockrun.Resource{Type: string(r.Type), Name: r.URN.Name(), Inputs: map[string]any{"id": string(r.ID)}}
		}
	}
	return nil
}

func (h *handle) LastUpdate(ctx context.Context) (*stackstate.Update, error) {
	if err := h.call(ctx, "history"); err != nil {
		return nil, err
	}
	h.s.b.mu.Lock()
	defer h.s.b.mu.Unlock()
	for i := len(h.s.history) - 1; i >= 0; i-- {
		if u := h.s.history[i]; u.Operation == "update" || u.Operation == "destroy" {
			u.Version = i + 1
			return &u, nil
		}
	}
	return nil, nil
}

func (h *handle) Remove(ctx context.Context) error {
	if err := h.call(ctx, "remove"); err != nil {
		return err
	}
	h.s.b.mu.Lock()
	defer h.s.b.mu.Unlock()
	if len(h.s.resources) > 0 {
		return errors.Errorf("stack %s still has resources", h.key())
	}
	delete(h.s.b.stacks, h.key())
	return nil
}

// Close closes the handle; closing it again does nothing.
func (h *handle) Close() error {
	h.s.b.mu.Lock()
	defer h.s.b.mu.Unlock()
	h.closed = true
	return nil
}

// record adds an operation to the stack's history, with the message it was run with, if any.
func (h *handle) record(kind, result string, message ...string) {
	h.s.b.mu.Lock()
	defer h.s.b.mu.Unlock()
	h.s.history = append(h.s.history, stackstate.Update{Operation: kind, Result: result, Ended: time.Now().UTC().Format(time.RFC3339),
		Message: strings.Join(message, "")})
}

// History is the stack's whole history, newest first (stackstate.Stack).
func (h *handle) History(ctx context.Context) ([]stackstate.Update, error) {
	if err := h.call(ctx, "history"); err != nil {
		return nil, err
	}
	h.s.b.mu.Lock()
	defer h.s.b.mu.Unlock()
	out := make([]stackstate.Update, 0, len(h.s.history))
	for i := len(h.s.history) - 1; i >= 0; i-- {
		u := h.s.history[i]
		u.Version = i + 1
		out = append(out, u)
	}
	return out, nil
}

func urn(s *stack, typ, name string) string { return string(urnOf(s, typ, name)) }

func urnOf(s *stack, typ, name string) resource.URN {
	return resource.URN(fmt.Sprintf("urn:pulumi:%s::%s::%s::%s", s.name, s.project, typ, name))
}

func tokensType(typ string) tokens.Type { return tokens.Type(typ) }

func values(outputs map[string]mockrun.Output) map[string]any {
	out := map[string]any{}
	for name, o := range outputs {
		if o.Secret {
			out[name] = "[secret]"
			continue
		}
		out[name] = o.Value
	}
	return out
}

// changed are the property paths where a and b differ, dotted through objects as the engine's
// detailed diff names them ("nodePool.nodeCount"); a list is one property.
func changed(prefix string, a, b any) []string {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if !aok || !bok {
		if reflect.DeepEqual(a, b) {
			return nil
		}
		return []string{prefix}
	}
	var out []string
	for k := range union(am, bm) {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		out = append(out, changed(p, am[k], bm[k])...)
	}
	return out
}

func union(a, b map[string]any) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// Key is a stack's key as the backend's methods take it.
func Key(project, stack string) string { return strings.Join([]string{project, stack}, "/") }
