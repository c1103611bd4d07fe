// Package serve puts `clusterplane serve` together: the store on PostgreSQL, River's queue on
// the same database, the reconcile workers and the HTTP API. Any number of replicas may run
// against one database; each serves the API, runs workers, or both.
package serve

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"os"
	"time"

	"github.com/clusterplane/clusterplane/pkg/change/policy"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/serve/api"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/logctx"
	"github.com/clusterplane/clusterplane/pkg/serve/metrics"
	"github.com/clusterplane/clusterplane/pkg/serve/reconcile"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/google/uuid"
	"github.com/pkg/errors"
	"github.com/riverqueue/river"
	"github.com/riverqueue/river/riverdriver"
	"github.com/riverqueue/river/riverdriver/riverdatabasesql"
	"github.com/riverqueue/river/riverdriver/riversqlite"
	"github.com/riverqueue/river/rivermigrate"
)

// Options are one replica's settings.
type Options struct {
	// DatabaseURL is the PostgreSQL database every replica shares.
	DatabaseURL string
	// Listen is the API's address; "" runs workers only.
	Listen string
	// Workers is how many stacks this replica reconciles at once; 0 serves the API only.
	Workers int
	// OIDCIssuer and OIDCAudience, when set, accept the issuer's ID tokens; RoleClaim names the
	// claim that holds the role.
	OIDCIssuer, OIDCAudience, RoleClaim string
	// TrustedProxies may set X-User-Email, whose users get ProxyRole.
	TrustedProxies []netip.Prefix
	ProxyRole      auth.Role
	Kinds          kinds.List
	Backend        func() (stackstate.Backend, error)
	Policy         *policy.Policy
	// StackTimeout bounds one stack's operation; RescueAfter is how long a job may run before
	// River takes it up again whatever its lease says (the outer bound: a worker whose process
	// died is found by its lease well before).
	StackTimeout, RescueAfter time.Duration
	// LeaseRenew, LeaseTTL and RescueEvery are the job leases' timing (0: reconcile's
	// LeaseRenew, LeaseTTL and RescueEvery): a job whose worker stopped renewing its lease for
	// LeaseTTL is taken up again by a replica's rescuer, which looks every RescueEvery.
	LeaseRenew, LeaseTTL, RescueEvery time.Duration
	// DriftEvery is how often each Ready object's stack is compared with the cloud (Drifted);
	// 0 never, after the check that follows each deploy.
	DriftEvery time.Duration
	Log        *slog.Logger
	// RateLimit is how many requests a second one caller may send after a burst of RateBurst;
	// 0 limits nobody.
	RateLimit float64
	RateBurst int
	// Ready, when set, is told the API's address once it listens.
	Ready func(addr string)
	// ShutdownGrace is how long the running jobs may go on once Run's context ends (SIGTERM):
	// those still running then are interrupted and handed back to the queue, for another replica
	// to take up at once. 0 hands them back at once.
	ShutdownGrace time.Duration
	// ShutdownDelay is how long the API goes on serving once Run's context ends, GET /readyz
	// answering 503, before its listener closes: the time a load balancer (Kubernetes' endpoints)
	// takes to see the 503 or the pod's end and stop sending, whose requests would otherwise be
	// refused. 0 closes the listener at once.
	ShutdownDelay time.Duration
}

// Service is a replica's parts, opened.
type Service struct {
	Store  *store.Store
	River  *river.Client[*sql.Tx]
	Server *api.Server
	// Metrics are the replica's, served at GET /metrics on the API's listener.
	Metrics *metrics.Metrics
	// rescuer gives back the jobs of workers that died (leases).
	rescuer *reconcile.Rescuer
	// handBack ends this replica's running jobs when its shutdown grace runs out.
	handBack *reconcile.HandBack
	// stopMetrics stops counting the process's cloud requests.
	stopMetrics func()
}

// Open connects to the database, creates the tables (the service's and River's) when missing and
// makes the queue's client; nothing runs yet.
func Open(ctx context.Context, o Options) (*Service, error) {
	if o.Log != nil {
		// Each line a request or a job logs with its context carries its ids (logctx).
		o.Log = slog.New(logctx.Handler{Handler: o.Log.Handler()})
	}
	// River's queue lives in the same database, so that a write and its job commit together.
	// Its tables are made under the lock the store makes its own under: River's migrations take
	// no lock, and replicas starting together on an empty database would make the same
	// functions at once, all but one failing.
	var driver riverdriver.Driver[*sql.Tx]
	var queueVersion int // the last of River's migrations, which GET /readyz wants the database at
	st, err := store.OpenMigrating(ctx, o.DatabaseURL, func(ctx context.Context, st *store.Store) error {
		driver = riverdatabasesql.New(st.DB)
		if st.Database == store.SQLite {
			driver = riversqlite.New(st.DB)
		}
		migrator, err := rivermigrate.New(driver, nil)
		if err != nil {
			return errors.Wrap(err, "prepare the queue's tables")
		}
		if all := migrator.AllVersions(); len(all) > 0 {
			queueVersion = all[len(all)-1].Version
		}
		_, err = migrator.Migrate(ctx, rivermigrate.DirectionUp, nil)
		return errors.Wrap(err, "create the queue's tables")
	})
	if err != nil {
		return nil, err
	}
	cfg := &river.Config{JobTimeout: o.StackTimeout, RescueStuckJobsAfter: o.RescueAfter, Logger: quiet(o.Log)}
	handBack := reconcile.NewHandBack()
	m := metrics.New(map[string]string{reconcile.Args{}.Kind(): "reconcile", reconcile.DriftArgs{}.Kind(): "drift",
		reconcile.SweepArgs{}.Kind(): "drift_sweep"})
	m.ReadFleet(st, reconcile.Controller, o.Log)
	cfg.Middleware = append(cfg.Middleware, &reconcile.JobLog{Log: o.Log}, &metrics.Jobs{M: m})
	rescuer, err := leases(ctx, st, cfg, o, handBack)
	if err != nil {
		st.Close()
		return nil, err
	}
	if o.Workers > 0 {
		workers := river.NewWorkers()
		worker := &reconcile.Worker{Store: st, Kinds: o.Kinds, Backend: o.Backend, Policy: o.Policy, StackTimeout: o.StackTimeout, Log: o.Log}
		river.AddWorker(workers, worker)
		river.AddWorker(workers, &reconcile.Drift{Worker: worker})
		river.AddWorker(workers, &reconcile.Sweep{Store: st, Every: o.DriftEvery, Worker: worker})
		cfg.Workers = workers
		cfg.Queues = map[string]river.QueueConfig{river.QueueDefault: {MaxWorkers: o.Workers}, reconcile.DriftQueue: {MaxWorkers: 1}}
		if o.DriftEvery > 0 {
			cfg.PeriodicJobs = []*river.PeriodicJob{reconcile.Sweeps(o.DriftEvery)}
		}
	}
	client, err := river.NewClient(driver, cfg)
	if err != nil {
		st.Close()
		return nil, errors.Wrap(err, "make the queue's client")
	}
	rescuer.River, rescuer.Rescued = client, m.Rescued
	st.Enqueue = reconcile.Enqueue(client)
	st.Summarise = reconcile.Controller
	authn := &auth.Authenticator{Tokens: st.Tokens(), TrustedProxies: o.TrustedProxies, ProxyRole: o.ProxyRole, RoleClaim: o.RoleClaim}
	if o.OIDCIssuer != "" {
		if authn.OIDC, err = auth.NewOIDC(ctx, o.OIDCIssuer, o.OIDCAudience); err != nil {
			st.Close()
			return nil, err
		}
	}
	server := &api.Server{Store: st, Auth: authn, Kinds: o.Kinds, Policy: o.Policy, Backend: o.Backend, Log: o.Log,
		QueueVersion: queueVersion, Metrics: m.Handler(), Observe: m.ObserveRequest}
	server.LimitCallers(o.RateLimit, o.RateBurst)
	return &Service{Store: st, River: client, Server: server, Metrics: m, rescuer: rescuer, handBack: handBack, stopMetrics: m.ObserveClouds()}, nil
}

// leases makes every job this replica's workers run hold a lease while it runs (a middleware of
// cfg, which names this replica's River client), and the rescuer that gives back the jobs whose
// lease ran out: without them, a job whose worker was killed would stay running until
// --rescue-after, hours. handBack ends the jobs at the end of a shutdown's grace.
func leases(ctx context.Context, st *store.Store, cfg *river.Config, o Options, handBack *reconcile.HandBack) (*reconcile.Rescuer, error) {
	if err := st.Jobs().MigrateLeases(ctx); err != nil {
		return nil, err
	}
	ttl := cmp.Or(o.LeaseTTL, reconcile.LeaseTTL)
	cfg.ID = replicaID()
	cfg.Middleware = append(cfg.Middleware, &reconcile.Leases{Store: st, Replica: cfg.ID,
		Renew: cmp.Or(o.LeaseRenew, reconcile.LeaseRenew), TTL: ttl, Log: o.Log, HandBack: handBack})
	return &reconcile.Rescuer{Store: st, TTL: ttl, Every: cmp.Or(o.RescueEvery, reconcile.RescueEvery), Log: o.Log}, nil
}

// replicaID names this replica's River client: its host and process, and a random part for two
// processes of one id (a restarted container).
func replicaID() string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s-%d-%s", cmp.Or(host, "replica"), os.Getpid(), uuid.NewString()[:8])
}

// rescue runs the rescuer until ctx ends; the returned function waits for it to stop.
func (s *Service) rescue(ctx context.Context) (wait func()) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.rescuer.Run(ctx)
	}()
	return func() { <-done }
}

// quiet is River's logger: its warnings and errors only.
func quiet(l *slog.Logger) *slog.Logger {
	if l == nil {
		return nil
	}
	return slog.New(levelAtLeast{l.Handler(), slog.LevelWarn})
}

type levelAtLeast struct {
	slog.Handler
	min slog.Level
}

func (h levelAtLeast) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= h.min && h.Handler.Enabled(ctx, l)
}

// Run runs the replica until ctx ends: the workers, when it has any, and the API, when it
// listens. When ctx ends (SIGTERM), at once: GET /readyz answers 503 and the workers take no new
// job; the API goes on serving for o.ShutdownDelay, then its listener closes, the requests under
// way given 10 seconds to finish. The running jobs
// are given o.ShutdownGrace to finish; those still running then are handed back to the queue
// (stopWorkers). Run returns once both are done.
func (s *Service) Run(ctx context.Context, o Options) error {
	defer s.Store.Close()
	defer s.stopMetrics()
	ctx, cancel := context.WithCancel(ctx)
	defer s.rescue(ctx)()
	defer cancel()
	if o.Workers > 0 {
		// The jobs' context is not ctx: its end only begins the workers' stop, which gives them
		// the grace.
		if err := s.River.Start(context.WithoutCancel(ctx)); err != nil {
			return errors.Wrap(err, "start the workers")
		}
		stopped := make(chan struct{})
		go func() {
			defer close(stopped)
			<-ctx.Done()
			s.stopWorkers(context.WithoutCancel(ctx), o)
		}()
		defer func() {
			cancel()
			<-stopped
		}()
	}
	if o.Listen == "" {
		<-ctx.Done()
		s.Server.ShuttingDown() // for an API served apart from Run
		return nil
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return errors.Wrapf(err, "listen on %s (--listen)", o.Listen)
	}
	srv := &http.Server{Handler: s.Server.Handler(), ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout: time.Minute, WriteTimeout: time.Minute, IdleTimeout: 2 * time.Minute}
	if o.Ready != nil {
		o.Ready(ln.Addr().String())
	}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return errors.Wrap(err, "serve the API")
	case <-ctx.Done():
	}
	// GET /readyz answers 503 from here, while the listener stays open for the delay: a load
	// balancer stops sending before a connection is refused.
	s.Server.ShuttingDown()
	select {
	case <-time.After(o.ShutdownDelay):
	case err := <-done:
		return errors.Wrap(err, "serve the API")
	}
	shutCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return srv.Shutdown(shutCtx)
}

// handBackWait bounds the wait, once the grace has run out, for the interrupted jobs to end: the
// engine's interruption lets its provider calls under way finish first.
const handBackWait = 2 * time.Minute

// stopWorkers stops the workers: no new job is taken, and the running jobs are given
// o.ShutdownGrace to finish. Those still running then are interrupted (each stack's lock is
// held until its engine has stopped, so nothing is applied twice) and, once River has recorded
// their attempt, queued again at once for any replica. A job whose engine does not stop within
// handBackWait is left to the leases: its lease runs out once the process is gone.
func (s *Service) stopWorkers(ctx context.Context, o Options) {
	graceCtx, cancel := context.WithTimeout(ctx, o.ShutdownGrace)
	defer cancel()
	if err := s.River.Stop(graceCtx); err == nil {
		return
	}
	if o.Log != nil {
		o.Log.Warn("the shutdown grace ran out before the running jobs ended: they are handed back to the queue",
			"shutdown_grace", o.ShutdownGrace.String())
	}
	// The jobs are ended by the hand-back, not by River's StopAndCancel: River would put them
	// back as if never attempted, and their next attempt would not mend what this one left.
	s.handBack.Begin()
	waitCtx, cancelWait := context.WithTimeout(ctx, handBackWait)
	defer cancelWait()
	if err := s.River.Stop(waitCtx); err != nil {
		if o.Log != nil {
			o.Log.Warn("the interrupted jobs did not end in time; their leases give them back once this replica is gone",
				"error", err.Error())
		}
		// River's own cancel, briefly: what still runs after it is left to the leases.
		lastCtx, cancelLast := context.WithTimeout(ctx, 10*time.Second)
		defer cancelLast()
		_ = s.River.StopAndCancel(lastCtx)
	}
	if err := s.handBack.Requeue(waitCtx, s.River); err != nil && o.Log != nil {
		o.Log.Warn("could not queue the handed-back jobs again at once; River retries them after its backoff",
			"error", err.Error())
	}
}

// TokenAdder stores an API token's record: the store's Tokens, or the store.TokenTable of a
// transaction (store.Tokens.Lock).
type TokenAdder interface {
	AddToken(ctx context.Context, rec auth.TokenRecord) error
}

// CreateToken makes an API token, stores its hash, and returns the text, which is shown once.
// controller is the controller_name a controller token reports status under: required for that
// role (auth.NewControllerToken), refused for the others, which report no status.
func CreateToken(ctx context.Context, st TokenAdder, name string, role auth.Role, controller string) (string, error) {
	if !role.Valid() {
		return "", fmt.Errorf("role %q: must be viewer, editor, controller or admin", role)
	}
	if role != auth.Controller && controller != "" {
		return "", fmt.Errorf("a controller name is for controller tokens only: a %s token reports no status", role)
	}
	plain, rec, err := auth.NewToken(name, role)
	if role == auth.Controller {
		plain, rec, err = auth.NewControllerToken(name, controller)
	}
	if err != nil {
		return "", err
	}
	return plain, st.AddToken(ctx, rec)
}
