// Package servecmd is the `clusterplane serve` command: its flags and what it prints, over
// package serve.
package servecmd

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/netip"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/clusterplane/clusterplane/pkg/cli"
	"github.com/clusterplane/clusterplane/pkg/cloudfacts"
	"github.com/clusterplane/clusterplane/pkg/deploy/autostack"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/exitcode"
	"github.com/clusterplane/clusterplane/pkg/kinds"
	"github.com/clusterplane/clusterplane/pkg/redact"
	"github.com/clusterplane/clusterplane/pkg/serve"
	"github.com/clusterplane/clusterplane/pkg/serve/api"
	"github.com/clusterplane/clusterplane/pkg/serve/auth"
	"github.com/clusterplane/clusterplane/pkg/serve/store"
	"github.com/clusterplane/clusterplane/pkg/serve/tracing"
	"github.com/pkg/errors"
	"github.com/spf13/cobra"
)

// DatabaseEnv names the database when --database-url is not given.
const DatabaseEnv = "CLUSTERPLANE_DATABASE_URL"

// DefaultDatabase is the database when neither --database-url nor $CLUSTERPLANE_DATABASE_URL
// names one: an SQLite file in the current folder (in the sandbox's folder inside the sandbox,
// beside the state of the stacks it records).
const DefaultDatabase = store.SQLitePrefix + "clusterplane-serve.db"

// DefaultShutdownGrace is --shutdown-grace's default: 5 minutes under the chart's
// terminationGracePeriodSeconds (25m), which leaves the interrupted engines time to stop and the
// jobs to be handed back before the kubelet kills the process.
const DefaultShutdownGrace = 20 * time.Minute

// DefaultShutdownDelay is --shutdown-delay's default: long enough for Kubernetes to take a
// stopping pod out of its Service's endpoints (a few seconds) before the listener closes.
const DefaultShutdownDelay = 5 * time.Second

type options struct {
	databaseURL, listen, oidcIssuer, oidcAudience, roleClaim, proxyRole, secretsProvider, logFormat string
	trustedProxies                                                                                  []string
	// policy is the --policy flag's own slice, which cobra fills when it parses the arguments.
	policy                                                              *[]string
	workers, rateBurst                                                  int
	rateLimit                                                           float64
	stackTimeout, rescueAfter, driftEvery, shutdownGrace, shutdownDelay time.Duration
}

// New is `clusterplane serve` and its `token` commands over the kinds.
func New(list kinds.List) *cobra.Command {
	o := &options{}
	cmd := &cobra.Command{
		Use:   "serve [--database-url postgres://...|sqlite:PATH]",
		Short: "Serve the clusters and node pools API, and reconcile what it is asked for",
		Long: `serve answers the clusters and node pools REST API (docs/api.md; its OpenAPI document at
/openapi.json) and runs workers that deploy each change through clusterplane's pipeline, the
same checks and guards as up, reporting each object's status as conditions.

With no database named, serve keeps its objects, statuses, tokens and queue in an SQLite file,
clusterplane-serve.db in the current folder (inside clusterplane sandbox, in the sandbox's
folder): one replica, nothing else to run. Every replica
started on one PostgreSQL database (--database-url postgres://...) shares them: run as many as
you like, some with --listen "" (workers only) or --workers 0 (API only). The Pulumi state is
wherever PULUMI_BACKEND_URL says (the PostgreSQL backend works for several replicas; a local
folder for one machine only).

Callers authenticate with an OIDC issuer's ID tokens (--oidc-issuer, --oidc-audience; the role in
--role-claim) or API tokens (serve token create). Roles: viewer reads; editor writes clusters and
pools; controller reports status, and is the only role that does (an API token, under the one
controller name it was made for); admin writes, and is what the sandbox's token has. X-User-Email is believed only from --trusted-proxy addresses.

Inside clusterplane sandbox, serve prints the sandbox's admin token at each start: one token,
kept in the sandbox's folder (serve-token, 0600) and made anew only when it no longer opens the
database.`,
		Example: `  clusterplane sandbox -- clusterplane serve
  clusterplane serve token create --name portal --role editor
  clusterplane serve --database-url postgres://... --oidc-issuer https://login.example.com --oidc-audience clusterplane`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return o.run(cmd, list) },
	}
	// The default is read when the command runs, not shown in --help: the URL may hold a password.
	cmd.PersistentFlags().StringVar(&o.databaseURL, "database-url", "", "postgres://... (shared by every replica) or sqlite:PATH (one replica) (default $"+DatabaseEnv+", else "+DefaultDatabase+")")
	f := cmd.Flags()
	f.StringVar(&o.listen, "listen", "127.0.0.1:8080", `the API's address; "" runs workers only`)
	f.IntVar(&o.workers, "workers", 2, "stacks this replica reconciles at once; 0 serves the API only")
	f.StringVar(&o.oidcIssuer, "oidc-issuer", "", "accept this OIDC issuer's ID tokens (its discovery document and keys are fetched)")
	f.StringVar(&o.oidcAudience, "oidc-audience", "", "the audience (client id) the ID tokens must carry")
	f.StringVar(&o.roleClaim, "role-claim", "clusterplane_role", "the ID token's claim that holds the role (a string or a list; the highest known role counts)")
	f.StringSliceVar(&o.trustedProxies, "trusted-proxy", nil, "addresses (CIDR) of proxies trusted to set X-User-Email; without it the header is ignored")
	f.StringVar(&o.proxyRole, "proxy-role", "editor", "the role of a user a trusted proxy names")
	f.StringVar(&o.secretsProvider, "secrets-provider", "", "how the secrets of stacks created are encrypted (as up's --secrets-provider)")
	f.Float64Var(&o.rateLimit, "rate-limit", api.DefaultRateLimit, "requests a second one caller (a token's subject) may send before it is answered 429, and failed authentications a second from one address; 0 limits nobody")
	f.IntVar(&o.rateBurst, "rate-burst", api.DefaultRateBurst, "requests a caller may send at once before --rate-limit applies (a portal sends some 200 at once)")
	f.DurationVar(&o.stackTimeout, "stack-timeout", 2*time.Hour, "how long one stack's operation may take")
	f.DurationVar(&o.driftEvery, "drift-every", time.Hour, "how often each Ready object's stack is compared with the cloud: the fleet scan first (one list of the cloud per 200 clusters), then a refreshing preview, spread over the interval, of each object the scan cannot vouch for; at least 1m; 0 only after each deploy")
	f.DurationVar(&o.rescueAfter, "rescue-after", 0, "how long a job may run before River takes it up again whatever its worker's lease says (default --stack-timeout plus 5m); a killed worker's job is queued again, in its old place, once its lease runs out: within a minute")
	f.DurationVar(&o.shutdownGrace, "shutdown-grace", DefaultShutdownGrace, "on SIGTERM, how long the running deploys may go on before they are interrupted and handed back to the queue for another replica; keep it under the pod's terminationGracePeriodSeconds (the chart's: 25m)")
	f.DurationVar(&o.shutdownDelay, "shutdown-delay", DefaultShutdownDelay, "on SIGTERM, how long the API goes on serving, GET /readyz answering 503, before its listener closes: the time a load balancer takes to stop sending it requests")
	f.StringVar(&o.logFormat, "log-format", "text", "how the log on standard error is written: text (key=value) or json (a JSON object a line); "+
		"each line of a request carries its request_id, each line of a job its job_id, object_id and stack")
	o.policy = cli.PolicyFlag(cmd)
	cmd.AddCommand(tokenCommands(o))
	return cmd
}

// unsharedBackend is a warning when the database is one several replicas can share (PostgreSQL)
// but the stacks' state is in a folder of this machine (a file:// backend, or none named: the
// user's own), which no other replica reads and which a pod loses when it restarts.
func unsharedBackend(databaseURL, backendURL string) string {
	if strings.HasPrefix(databaseURL, store.SQLitePrefix) || (backendURL != "" && !strings.HasPrefix(backendURL, "file:")) {
		return ""
	}
	where := "a local folder (" + autostack.BackendEnv + " " + backendURL + ")"
	if backendURL == "" {
		where = "the local folder Pulumi uses when " + autostack.BackendEnv + " is not set"
	}
	return "the stacks' state is in " + where + ", while the database is PostgreSQL: several replicas must share one " +
		"backend (a postgres:// URL), or each deploys from state the others never see; in a pod the folder is lost at a restart"
}

// database is --database-url, else $CLUSTERPLANE_DATABASE_URL, else DefaultDatabase (inside the
// sandbox, that file in the sandbox's folder).
func (o *options) database() string {
	if o.databaseURL == "" {
		o.databaseURL = os.Getenv(DatabaseEnv)
	}
	if o.databaseURL == "" {
		o.databaseURL = DefaultDatabase
		if dir := os.Getenv(cloudfacts.SandboxEnv); dir != "" {
			o.databaseURL = store.SQLitePrefix + filepath.Join(dir, store.SQLitePath(DefaultDatabase))
		}
	}
	return o.databaseURL
}

func (o *options) run(cmd *cobra.Command, list kinds.List) error {
	sqlite := strings.HasPrefix(o.database(), store.SQLitePrefix)
	// River's queue on SQLite, and SQLite itself, are for one process: the API and the workers
	// of several replicas need a database they can share.
	if sqlite && (o.listen == "" || o.workers == 0) {
		return errors.New(`--listen "" and --workers 0 split the API and the workers between replicas, which share a PostgreSQL database: --database-url postgres://...`)
	}
	prefixes, err := parsePrefixes(o.trustedProxies)
	if err != nil {
		return err
	}
	proxyRole, err := auth.ParseRole(o.proxyRole)
	if err != nil {
		return errors.Wrap(err, "--proxy-role")
	}
	pol, err := cli.LoadPolicy(*o.policy)
	if err != nil {
		return err
	}
	if o.driftEvery < 0 || o.driftEvery > 0 && o.driftEvery < time.Minute {
		// Each check is an engine run of seconds: shorter intervals only queue sweeps faster than
		// a replica can run them.
		return errors.Errorf("--drift-every %s: must be 0 (a check after each deploy only) or at least 1m, such as 1h", o.driftEvery)
	}
	if o.rescueAfter == 0 {
		o.rescueAfter = o.stackTimeout + 5*time.Minute
	}
	if o.rescueAfter <= o.stackTimeout {
		return errors.Errorf("--rescue-after %s must be longer than --stack-timeout %s: a job still running would be taken up twice", o.rescueAfter, o.stackTimeout)
	}
	if o.shutdownDelay < 0 {
		return errors.Errorf("--shutdown-delay %s: must be 0 (close the listener at once) or more, such as %s", o.shutdownDelay, DefaultShutdownDelay)
	}
	if o.shutdownGrace < 0 {
		return errors.Errorf("--shutdown-grace %s: must be 0 (hand the running jobs back at once) or more, such as %s", o.shutdownGrace, DefaultShutdownGrace)
	}
	logger, err := o.logger(cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	if warning := unsharedBackend(o.databaseURL, os.Getenv(autostack.BackendEnv)); warning != "" {
		logger.Warn(warning)
	}
	exe, err := os.Executable()
	if err != nil {
		return errors.Wrap(err, "find the clusterplane binary")
	}
	var backend stackstate.Backend
	opts := serve.Options{DatabaseURL: o.databaseURL, Listen: o.listen, Workers: o.workers,
		OIDCIssuer: o.oidcIssuer, OIDCAudience: o.oidcAudience, RoleClaim: o.roleClaim,
		TrustedProxies: prefixes, ProxyRole: proxyRole, Kinds: list, Policy: pol,
		StackTimeout: o.stackTimeout, RescueAfter: o.rescueAfter, RateLimit: o.rateLimit, RateBurst: o.rateBurst,
		DriftEvery: o.driftEvery, ShutdownGrace: o.shutdownGrace, ShutdownDelay: o.shutdownDelay, Log: logger,
		Backend: func() (stackstate.Backend, error) {
			if backend != nil {
				return backend, nil
			}
			b, err := autostack.New(autostack.Options{SecretsProvider: o.secretsProvider, Plugin: exe})
			if err != nil {
				return nil, err
			}
			backend = b
			return b, nil
		},
		Ready: func(addr string) {
			fmt.Fprintf(cmd.ErrOrStderr(), "clusterplane serve: the API is at http://%s\n", addr)
		}}
	ctx, stop := stopOnSignal(cmd.Context(), cmd.ErrOrStderr(), o.shutdownGrace)
	defer stop()
	stopTraces, err := tracing.Start(ctx)
	if err != nil {
		return failed(cmd, err)
	}
	defer func() {
		flush, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = stopTraces(flush) // spans not sent by then are lost, not worth a failed exit
	}()
	svc, err := serve.Open(ctx, opts)
	if err != nil {
		return failed(cmd, err)
	}
	if sqlite {
		fmt.Fprintf(cmd.ErrOrStderr(), "clusterplane serve: keeping its data in %s (SQLite, one replica; --database-url postgres://... for several)\n",
			store.SQLitePath(o.databaseURL))
	}
	if dir := os.Getenv(cloudfacts.SandboxEnv); dir != "" {
		token, err := sandboxToken(ctx, svc.Store, dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(cmd.OutOrStdout(), "The sandbox's admin token (kept in %s): %s\n", filepath.Join(dir, sandboxTokenFile), token)
	}
	if err := svc.Run(ctx, opts); err != nil {
		return failed(cmd, err)
	}
	return nil
}

// stopOnSignal is ctx, ended by the first SIGTERM or Ctrl-C, which begins the replica's stop
// (serve.Service.Run). A second signal ends the process at once, as a kill does (Go's default
// once the signals are no longer caught): the jobs still running are given back by their leases.
func stopOnSignal(parent context.Context, w io.Writer, grace time.Duration) (context.Context, func()) {
	ctx, cancel := context.WithCancel(parent)
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, os.Interrupt, syscall.SIGTERM)
	go func() {
		select {
		case <-signals:
		case <-ctx.Done():
			return
		}
		signal.Stop(signals)
		fmt.Fprintf(w, "clusterplane serve: stopping: no new jobs; the running ones have --shutdown-grace %s to finish, "+
			"then go back to the queue. Signal again to stop at once.\n", grace)
		cancel()
	}()
	return ctx, func() {
		signal.Stop(signals)
		cancel()
	}
}

// logger writes serve's log to w in --log-format, the secrets of the run (the cloud tokens of
// the environment, the database's password) redacted from every line.
func (o *options) logger(w io.Writer) (*slog.Logger, error) {
	w = redact.NewWriter(w, redact.FromEnv().WithURL(o.databaseURL))
	switch o.logFormat {
	case "text":
		return slog.New(slog.NewTextHandler(w, nil)), nil
	case "json":
		return slog.New(slog.NewJSONHandler(w, nil)), nil
	}
	return nil, errors.Errorf("--log-format %q: must be text or json", o.logFormat)
}

// failed says err, a failure of the database or the server rather than of the command line,
// and exits 1 (exitcode.Invalid) without pointing at --help.
func failed(cmd *cobra.Command, err error) error {
	fmt.Fprintf(cmd.ErrOrStderr(), "clusterplane serve: %v\n", err)
	return cli.Exit(exitcode.Invalid)
}

func parsePrefixes(values []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, v := range values {
		p, err := netip.ParsePrefix(v)
		if err != nil {
			a, aerr := netip.ParseAddr(v)
			if aerr != nil {
				return nil, errors.Errorf("--trusted-proxy %q: not an address or a CIDR prefix", v)
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		out = append(out, p)
	}
	return out, nil
}

func tokenCommands(o *options) *cobra.Command {
	token := &cobra.Command{Use: "token", Short: "Create, list and revoke the API tokens of bots and controllers", Args: cobra.NoArgs}
	var name, role, controller string
	create := &cobra.Command{Use: "create --name NAME --role ROLE [--controller CONTROLLER]", Short: "Create an API token: it is printed once, and only its hash is kept", Args: cobra.NoArgs,
		Long: `create makes an API token and prints it once; only its hash is kept.

A controller token reports status under one controller_name, the one --controller names, and
under no other: a controller cannot pass itself off as another, nor as serve's own workers
("clusterplane", which no token may report as). --controller is required with --role controller
and refused with the other roles. Controller tokens made before --controller existed report no
status: replace them with one made with --controller, then revoke them.`,
		Example: `  clusterplane serve token create --name ci --role editor
  clusterplane serve token create --name gpu-probe --role controller --controller gpu-probe`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if role == "" {
				return errors.New("--role is required: viewer, editor, controller or admin")
			}
			r, err := auth.ParseRole(role)
			if err != nil {
				return errors.Wrap(err, "--role")
			}
			if name == "" {
				return errors.New("--name: name the token after who uses it (a bot, a controller)")
			}
			if r == auth.Controller && controller == "" {
				return errors.New("--controller is required with --role controller: the controller_name the token reports status under, and the only one it may")
			}
			if r != auth.Controller && controller != "" {
				return errors.Errorf("--controller is for --role controller only: a %s token reports no status", r)
			}
			if r == auth.Controller {
				if err := auth.CheckControllerName(controller); err != nil {
					return errors.Wrapf(err, "--controller %q", controller)
				}
				if auth.Reserved(controller) {
					return errors.Errorf("--controller %q is reserved for serve's own workers: name the controller that will use the token", controller)
				}
			}
			return o.withStore(cmd, func(ctx context.Context, st *store.Store) error {
				plain, err := serve.CreateToken(ctx, st.Tokens(), name, r, controller)
				if err == nil {
					fmt.Fprintln(cmd.OutOrStdout(), plain)
				}
				return err
			})
		}}
	create.Flags().StringVar(&name, "name", "", "who uses the token")
	create.Flags().StringVar(&role, "role", "", "viewer, editor, controller or admin")
	create.Flags().StringVar(&controller, "controller", "", "with --role controller (required there): the controller_name the token reports status under, and the only one it may")
	list := &cobra.Command{Use: "list", Short: "List the API tokens (never their text)", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return o.withStore(cmd, func(ctx context.Context, st *store.Store) error {
				tokens, err := st.Tokens().List(ctx)
				if err == nil {
					printTokens(cmd.OutOrStdout(), tokens)
				}
				return err
			})
		}}
	revoke := &cobra.Command{Use: "revoke ID|NAME", Short: "Revoke an API token: it authenticates nobody from then on", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return o.withStore(cmd, func(ctx context.Context, st *store.Store) error { return st.Tokens().RevokeToken(ctx, args[0]) })
		}}
	token.AddCommand(create, list, revoke)
	return token
}

// withStore runs f on the database serve uses. An SQLite file must exist: a token kept in a file
// serve never opens would authenticate nobody.
func (o *options) withStore(cmd *cobra.Command, f func(ctx context.Context, st *store.Store) error) error {
	if url := o.database(); strings.HasPrefix(url, store.SQLitePrefix) {
		if _, err := os.Stat(store.SQLitePath(url)); errors.Is(err, os.ErrNotExist) {
			return failed(cmd, errors.Errorf("no serve database at %s: serve makes it when it first starts. "+
				"Name the one serve uses with --database-url sqlite:PATH (clusterplane sandbox -- clusterplane serve "+
				"keeps it in the sandbox's folder: --database-url sqlite:%s)", store.SQLitePath(url),
				filepath.Join(cloudfacts.SandboxDir, store.SQLitePath(DefaultDatabase))))
		}
	}
	st, err := store.Open(cmd.Context(), o.database())
	if err != nil {
		return failed(cmd, err)
	}
	defer st.Close()
	if err := f(cmd.Context(), st); err != nil {
		return failed(cmd, err)
	}
	return nil
}

func printTokens(w io.Writer, tokens []store.Token) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tROLE\tCONTROLLER\tCREATED\tREVOKED")
	for _, t := range tokens {
		revoked := "-"
		if t.RevokedAt != nil {
			revoked = t.RevokedAt.UTC().Format(time.RFC3339)
		}
		// A controller token without a controller was made before tokens named one: it reports
		// no status until replaced, which the column says rather than leaving it blank.
		controller := "-"
		switch {
		case t.Controller != "":
			controller = t.Controller
		case t.Role == string(auth.Controller):
			controller = "(none: replace this token)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", t.ID, t.Name, t.Role, controller, t.CreatedAt.UTC().Format(time.RFC3339), revoked)
	}
	tw.Flush()
}
