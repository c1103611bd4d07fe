package pipeline

import (
	"context"

	"github.com/clusterplane/clusterplane/pkg/deploy"
	"github.com/clusterplane/clusterplane/pkg/deploy/deploytarget"
	"github.com/clusterplane/clusterplane/pkg/deploy/operation"
	"github.com/clusterplane/clusterplane/pkg/deploy/outcome"
	"github.com/clusterplane/clusterplane/pkg/deploy/runreport"
)

// Step is the operation a run gives each stack: its name, from which the run takes its checks
// (checksOffer, scans), its order (operation.Name.Reverse) and its words, and the Deployer's call
// that carries it out. Only the constructors below make one, each from its own operation's
// options, so the name and the call cannot disagree: a preview never runs up's call.
type Step struct {
	name operation.Name
	run  func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome
}

// Operation is the operation the step carries out.
func (s Step) Operation() operation.Name { return s.name }

// Preview previews each stack (Deployer.Preview).
func Preview(o deploy.PreviewOptions) Step {
	return Step{operation.Preview, func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
		return d.Preview(ctx, t, o)
	}}
}

// PreviewPlan previews each stack for a plan to save (Deployer.PreviewPlan).
func PreviewPlan() Step {
	return Step{operation.Preview, func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
		return d.PreviewPlan(ctx, t)
	}}
}

// Up deploys each stack (Deployer.Up).
func Up(o deploy.UpOptions) Step {
	return Step{operation.Up, func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
		return d.Up(ctx, t, o)
	}}
}

// UpPlan deploys each stack as Up does, and only its part of a saved plan, plan(key) (UpOptions.Planned).
func UpPlan(plan func(key string) *outcome.PlannedStack, o deploy.UpOptions) Step {
	return Step{operation.Up, func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
		o := o
		o.Planned = plan(t.Key())
		return d.Up(ctx, t, o)
	}}
}

// Refresh reads each stack's resources back from the cloud (Deployer.Refresh).
func Refresh(o deploy.RefreshOptions) Step {
	return Step{operation.Refresh, func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
		return d.Refresh(ctx, t, o)
	}}
}

// Drift tells each stack's drift (Deployer.Drift); with failOnPending, pending changes block
// (runreport.PendingFails).
func Drift(failOnPending bool) Step {
	return Step{operation.Drift, func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
		return runreport.PendingFails(d.Drift(ctx, t), failOnPending)
	}}
}

// Status reports each stack (Deployer.Status), reading the cloud too when drift is set; a
// referenced stack exists when the run's backend holds what it deployed.
func Status(drift bool) Step {
	return Step{operation.Status, func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
		return d.Status(ctx, t, statusOptions(ctx, d, drift))
	}}
}

// statusOptions are Status's options: the cloud read when drift is set, and a referenced stack
// existing when the run's backend holds what it deployed.
func statusOptions(ctx context.Context, d *deploy.Deployer, drift bool) deploy.StatusOptions {
	return deploy.StatusOptions{Drift: drift,
		Exists: func(key string) (bool, error) { return deploytarget.Deployed(ctx, d.Backend, key) }}
}

// Destroy destroys each stack (Deployer.Destroy).
func Destroy(o deploy.DestroyOptions) Step {
	return Step{operation.Destroy, func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
		return d.Destroy(ctx, t, o)
	}}
}

// Kubeconfig reads each stack's kubeconfig (Deployer.Kubeconfig).
func Kubeconfig() Step {
	return Step{operation.Kubeconfig, func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
		return d.Kubeconfig(ctx, t)
	}}
}

// Adopt imports each stack's cluster or pool (Deployer.Adopt) by the cloud id id gives for the
// stack's key; id is asked as each stack runs, so a guard may work the ids out first.
func Adopt(id func(key string) string, o deploy.AdoptOptions) Step {
	return Step{operation.Adopt, func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
		return d.Adopt(ctx, t, id(t.Key()), o)
	}}
}

// Around is s with around deciding each stack's outcome: it is given the stack's Call, and may
// run the step's own call or answer in its place (a sweep that leaves a stack the scan did not
// vouch for to its own check; a service that reads the status an up left; a test that counts).
func (s Step) Around(around func(c Call) outcome.Outcome) Step {
	inner := s.run
	s.run = func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome {
		return around(Call{Target: t, Scanned: d.Scanned[t.Key()], ctx: ctx, d: d, run: inner})
	}
	return s
}

// Call is one stack's turn in a step, as Around sees it: the stack, what the fleet scan found of
// it (the zero Scanned without a scan), the step's own call, and what may go with any operation
// on the same stack: mending what an interrupted one left and reading its status. It gives no
// other operation's call, so a step wrapped in Around still runs only its own operation.
type Call struct {
	Target  deploytarget.Target
	Scanned deploy.Scanned

	ctx context.Context
	d   *deploy.Deployer
	run func(ctx context.Context, d *deploy.Deployer, t deploytarget.Target) outcome.Outcome
}

// Context is the stack's context: the run's, within its StackTimeout.
func (c Call) Context() context.Context { return c.ctx }

// Run runs the step's own call on the stack.
func (c Call) Run() outcome.Outcome { return c.run(c.ctx, c.d, c.Target) }

// TakeOver mends what an interrupted operation left on the stack (Deployer.TakeOver).
func (c Call) TakeOver() outcome.Outcome { return c.d.TakeOver(c.ctx, c.Target) }

// Status reads the stack's status, the cloud included, as Status(true) does.
func (c Call) Status() outcome.Outcome { return Status(true).run(c.ctx, c.d, c.Target) }

// StatusAfterUp reads the stack's status right after up, the outcome of an up just run on it,
// as Status does, except that Drifted compares the state that up wrote with the manifest, with
// no second read of the cloud, when the up read the cloud within its own run
// (deploy.StatusOptions.AfterUp).
func (c Call) StatusAfterUp(up outcome.Outcome) outcome.Outcome {
	opts := statusOptions(c.ctx, c.d, true)
	opts.AfterUp = &up
	return c.d.Status(c.ctx, c.Target, opts)
}
