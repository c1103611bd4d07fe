//go:build e2e

package e2e_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/digitalocean/godo"
	"sigs.k8s.io/yaml"
)

// The CI recipe of examples/ci run as GitHub would run it, on the real engine: each job's steps in
// order, their `if:` conditions and `${{ }}` expressions evaluated, their `run:` scripts in bash with
// the workflow's environment. Steps that only set up a runner (`uses:`, "Set up ...") are left
// out: clusterplane, the engine and the plugins are the harness's. `gh` is a stand-in that records
// what it was asked to post.

type workflow struct {
	Env  map[string]string `json:"env"`
	Jobs map[string]struct {
		If             string         `json:"if"`
		TimeoutMinutes int            `json:"timeout-minutes"`
		Steps          []workflowStep `json:"steps"`
	} `json:"jobs"`
}

type workflowStep struct {
	ID             string            `json:"id"`
	Name           string            `json:"name"`
	If             string            `json:"if"`
	Uses           string            `json:"uses"`
	Run            string            `json:"run"`
	Env            map[string]string `json:"env"`
	TimeoutMinutes int               `json:"timeout-minutes"`
}

// githubDefaultTimeout is how long GitHub lets a job or step run when the workflow does not say.
const githubDefaultTimeout = 360 * time.Minute

// timeout is a job's or step's timeout-minutes as GitHub reads it.
func timeout(minutes int) time.Duration {
	if minutes == 0 {
		return githubDefaultTimeout
	}
	return time.Duration(minutes) * time.Minute
}

// jobRun is what one job did: each step that ran with its exit code, and the step that failed.
type jobRun struct {
	codes  map[string]int
	failed string
	code   int
}

// ghCall is one call of the gh stand-in: its arguments and the body file's text.
type ghCall struct {
	Args []string `json:"args"`
	Body string   `json:"body"`
}

var expression = regexp.MustCompile(`\$\{\{\s*([^}]*?)\s*\}\}`)

// runJob runs job of wf as the event would, in dir, with the environment vars; secrets are the
// repository's secrets.
func runJob(t *testing.T, wf workflow, job, event, dir string, vars []string, secrets map[string]string) jobRun {
	t.Helper()
	j, ok := wf.Jobs[job]
	if !ok {
		t.Fatalf("the workflow has no job %s", job)
	}
	outputs := map[string]map[string]string{}
	eval := func(expr string) string {
		switch {
		case expr == "github.event.pull_request.number":
			return "7"
		case expr == "github.token":
			return "gh-test-token"
		case expr == "github.event_name":
			return event
		case strings.HasPrefix(expr, "secrets."):
			return secrets[strings.TrimPrefix(expr, "secrets.")]
		case strings.HasPrefix(expr, "steps."):
			parts := strings.Split(expr, ".")
			if len(parts) == 4 && parts[2] == "outputs" {
				return outputs[parts[1]][parts[3]]
			}
		}
		t.Fatalf("the workflow uses ${{ %s }}, which this test cannot evaluate: keep the workflow to what it runs", expr)
		return ""
	}
	subst := func(text string) string {
		return expression.ReplaceAllStringFunc(text, func(m string) string { return eval(expression.FindStringSubmatch(m)[1]) })
	}
	condition := func(cond string, failed bool) bool { return stepCondition(t, cond, failed, eval) }
	run := jobRun{codes: map[string]int{}}
	if !condition(j.If, false) {
		t.Fatalf("job %s does not run on %s", job, event)
	}
	jobCtx, cancelJob := jobContext(t, j.TimeoutMinutes)
	defer cancelJob()
	env := append([]string{}, vars...)
	for k, v := range wf.Env {
		env = append(env, k+"="+subst(v))
	}
	for i, s := range j.Steps {
		if s.Uses != "" || strings.HasPrefix(s.Name, "Set up") {
			continue
		}
		if !condition(s.If, run.failed != "") {
			continue
		}
		output := filepath.Join(dir, fmt.Sprintf(".github-output-%d", i))
		stepEnv := append(append([]string{}, env...), "GITHUB_OUTPUT="+output)
		for k, v := range s.Env {
			stepEnv = append(stepEnv, k+"="+subst(v))
		}
		code, out := runStep(t, jobCtx, job, s, dir, stepEnv, subst(s.Run))
		run.codes[s.Name] = code
		t.Logf("job %s, step %q: exit %d\n%s", job, s.Name, code, out)
		if got, err := readStepOutput(output); err == nil && s.ID != "" {
			outputs[s.ID] = got
		}
		if code != 0 && run.failed == "" {
			run.failed, run.code = s.Name, code
		}
	}
	return run
}

// stepCondition evaluates an if: of the forms the workflow uses: always(), A == 'b', A || B;
// failed says whether a step before failed, and eval evaluates an expression.
func stepCondition(t *testing.T, cond string, failed bool, eval func(string) string) bool {
	t.Helper()
	cond = strings.TrimSpace(cond)
	switch {
	case cond == "":
		return !failed
	case cond == "always()":
		return true
	case strings.Contains(cond, "||"):
		for _, part := range strings.Split(cond, "||") {
			if stepCondition(t, part, failed, eval) {
				return true
			}
		}
		return false
	case strings.Contains(cond, "=="):
		left, right, _ := strings.Cut(cond, "==")
		return !failed && eval(strings.TrimSpace(left)) == strings.Trim(strings.TrimSpace(right), "'")
	}
	t.Fatalf("the workflow has the condition %q, which this test cannot evaluate", cond)
	return false
}

// jobContext bounds all of a job's steps by its timeout-minutes, as on GitHub; the test's own
// deadline comes first, so that a stuck job fails the test rather than its binary.
func jobContext(t *testing.T, minutes int) (context.Context, context.CancelFunc) {
	t.Helper()
	ctx, cancelJob := context.WithTimeout(context.Background(), timeout(minutes))
	deadline, ok := t.Deadline()
	if !ok {
		return ctx, cancelJob
	}
	ctx, cancel := context.WithDeadline(ctx, deadline.Add(-time.Minute))
	return ctx, func() { cancel(); cancelJob() }
}

// runStep runs one step's script in bash within its timeout-minutes, as a runner does, and says
// its exit code and what it printed.
func runStep(t *testing.T, jobCtx context.Context, job string, s workflowStep, dir string, env []string, script string) (int, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(jobCtx, timeout(s.TimeoutMinutes))
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script)
	cmd.Dir, cmd.Env = dir, env
	// A step that runs out of time is killed with everything it started, as a runner does.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Errorf("job %s, step %q ran out of its time (the workflow's timeout-minutes or the test's deadline)", job, s.Name)
	}
	cancel()
	code := 0
	if exit, ok := err.(*exec.ExitError); ok {
		code = exit.ExitCode()
	} else if err != nil {
		t.Fatalf("step %q: %v", s.Name, err)
	}
	return code, out
}

// readStepOutput reads the key=value lines a step wrote to its GITHUB_OUTPUT file, the outputs
// later steps read as steps.<id>.outputs.<key>.
func readStepOutput(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	outputs := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			outputs[k] = v
		}
	}
	return outputs, nil
}

// ghStandIn writes a gh that records each call, with the text of its --body-file, into log.
func ghStandIn(t *testing.T, bin, log string) {
	t.Helper()
	script := `#!/usr/bin/env bash
body=""
args=("$@")
for ((i = 0; i < ${#args[@]}; i++)); do
	[[ ${args[i]} == --body-file ]] && body=$(cat "${args[i+1]}")
done
python3 -c 'import json, sys; print(json.dumps({"args": sys.argv[2:], "body": sys.argv[1]}))' "$body" "$@" >> "` + log + `"
`
	if err := os.WriteFile(filepath.Join(bin, "gh"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
}

func ghCalls(t *testing.T, log string) []ghCall {
	t.Helper()
	data, _ := os.ReadFile(log)
	var calls []ghCall
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if line == "" {
			continue
		}
		var c ghCall
		if err := json.Unmarshal([]byte(line), &c); err != nil {
			t.Fatalf("gh log: %v: %s", err, line)
		}
		if len(c.Args) > 0 && (c.Args[0] == "api" || c.Args[0] == "run" || strings.Join(c.Args[:min(2, len(c.Args))], " ") == "pr view") {
			// Reads: the apply job finding the pull request's plan. The review job left its plan.json
			// in the repository's folder, where the stand-in's `gh run download` would put it.
			continue
		}
		calls = append(calls, c)
	}
	return calls
}

// Promise: ci-workflow-runs-as-github-would
// Promise: ci-workflow-drift-fails-the-job
func TestTheGitHubWorkflowReviewsAppliesAndWatchesForDriftAsItSays(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	data, err := os.ReadFile(filepath.Join(root, "examples", "ci", "github-actions.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	// The repository: the manifests under clusters/, as the workflow's MANIFESTS says.
	repo := filepath.Join(e.dir, "repo")
	clusters := filepath.Join(repo, wf.Env["MANIFESTS"])
	if err := os.MkdirAll(clusters, 0o755); err != nil {
		t.Fatal(err)
	}
	cluster := filepath.Join(clusters, "platform.yaml")
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(cluster, withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"))
	bin := filepath.Join(e.dir, "ci-bin")
	if err := os.MkdirAll(bin, 0o755); err != nil {
		t.Fatal(err)
	}
	ghLog := filepath.Join(e.dir, "gh.log")
	ghStandIn(t, bin, ghLog)
	vars, secrets := ciVarsAndSecrets(t, e, bin)

	reviewAndApplyANewCluster(t, e, wf, repo, vars, secrets, ghLog)

	// The nightly drift check: quiet while the cloud is as deployed, an issue once it is edited.
	if quiet := runJob(t, wf, "drift", "schedule", repo, vars, secrets); quiet.failed != "" || len(ghCalls(t, ghLog)) != 1 {
		t.Fatalf("drift without drift failed at %q or opened an issue", quiet.failed)
	}
	e.do.EditCluster(e.doCluster("dev-fra1").ID, func(c *godo.KubernetesCluster) { c.Tags = []string{"edited-in-the-console"} })
	drift := runJob(t, wf, "drift", "schedule", repo, vars, secrets)
	calls := ghCalls(t, ghLog)
	if drift.failed != "Fail on drift or an error" || drift.code != 3 {
		t.Errorf("drift after a console edit: failed at %q with %d, want the last step with 3", drift.failed, drift.code)
	}
	if len(calls) != 2 || strings.Join(calls[1].Args[:2], " ") != "issue create" || !strings.Contains(calls[1].Body, "drifted `spec.tags`: the cloud has `[\"edited-in-the-console\"]`") {
		t.Errorf("gh calls %+v, want an issue naming spec.tags", calls)
	}

	// A pull request that would replace the cluster: the comment names the field and why, the
	// check fails with exit 3.
	moved := strings.Replace(withSpec(example(t, "digitaloceankubernetescluster/minimal.yaml"), "  deletionProtection: false\n"), "region: fra1", "region: ams3", 1)
	write(cluster, moved)
	replacing := runJob(t, wf, "review", "pull_request", repo, vars, secrets)
	calls = ghCalls(t, ghLog)
	if replacing.failed != "Fail on a replacement, a refused change or a failed preview" || replacing.code != 3 {
		t.Errorf("review of a replacement failed at %q with %d, want the last step with 3", replacing.failed, replacing.code)
	}
	if last := calls[len(calls)-1]; !strings.Contains(last.Body, "**replace**") || !strings.Contains(last.Body, "`spec.region`: `\"fra1\"` → `\"ams3\"` (replace)") {
		t.Errorf("the comment on a replacement does not name spec.region:\n%s", last.Body)
	}
	for _, c := range calls {
		for _, secret := range []string{doToken, civoToken} {
			if strings.Contains(c.Body, secret) {
				t.Error("a comment holds a token")
			}
		}
	}
}

// ciVarsAndSecrets splits the test's environment as a repository would hold it: the backend, its
// passphrase and the tokens are secrets the workflow reads, the rest are the runner's, with the gh
// stand-in and clusterplane first on its PATH.
func ciVarsAndSecrets(t *testing.T, e *env, bin string) ([]string, map[string]string) {
	t.Helper()
	var vars []string
	secrets := map[string]string{}
	for _, kv := range e.vars {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH":
			vars = append(vars, "PATH="+bin+string(os.PathListSeparator)+binaries(t)+string(os.PathListSeparator)+v)
		case "PULUMI_BACKEND_URL", "PULUMI_CONFIG_PASSPHRASE", "DIGITALOCEAN_TOKEN", "CIVO_TOKEN":
			secrets[k] = v // the workflow takes them from the repository's secrets
		default:
			vars = append(vars, kv)
		}
	}
	return vars, secrets
}

// reviewAndApplyANewCluster runs the review job on a pull request adding the cluster, then the
// apply job once it is merged, and checks each did what the workflow says.
func reviewAndApplyANewCluster(t *testing.T, e *env, wf workflow, repo string, vars []string, secrets map[string]string, ghLog string) {
	t.Helper()
	// A pull request adding the cluster: validated, previewed, the report posted, the check green.
	review := runJob(t, wf, "review", "pull_request", repo, vars, secrets)
	if review.failed != "" {
		t.Fatalf("review of a new cluster failed at %q (exit %d)", review.failed, review.code)
	}
	calls := ghCalls(t, ghLog)
	if len(calls) != 1 || strings.Join(calls[0].Args[:3], " ") != "pr comment 7" ||
		!strings.Contains(calls[0].Body, "### clusterplane preview") || !strings.Contains(calls[0].Body, "**create**") {
		t.Fatalf("gh calls %+v, want one comment on pull request 7 with the preview", calls)
	}

	if plan, err := os.ReadFile(filepath.Join(repo, "plan.json")); err != nil || !strings.Contains(string(plan), `"op": "create"`) {
		t.Fatalf("the review saved no plan of the create: %v %s", err, plan)
	}

	// Merged: the plan reviewed deployed, the JSON report kept.
	apply := runJob(t, wf, "apply", "push", repo, vars, secrets)
	if apply.failed != "" {
		t.Fatalf("apply failed at %q (exit %d)", apply.failed, apply.code)
	}
	var up struct {
		Summary map[string]int `json:"summary"`
	}
	if data, err := os.ReadFile(filepath.Join(repo, "up.json")); err != nil || json.Unmarshal(data, &up) != nil || up.Summary["done"] != 1 {
		t.Fatalf("up.json: %v %s", err, data)
	}
	if _, ok := e.do.ClusterNamed("dev-fra1"); !ok {
		t.Fatal("the apply job deployed no cluster")
	}
}

func TestTheReleaseWorkflowBuildsChecksAndPublishesTheRelease(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(filepath.Join(root, "examples", "ci", "release.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf workflow
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	bin := t.TempDir()
	ghLog := filepath.Join(bin, "gh.log")
	ghStandIn(t, bin, ghLog)
	// The tag's release, for this machine's platform only: six cross-builds take a CI runner's time.
	platform := runtime.GOOS + "/" + runtime.GOARCH
	vars := append(os.Environ(), "PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"GITHUB_REF_NAME="+releaseVersion, "PLATFORMS="+platform)
	job := runJob(t, wf, "release", "push", root, vars, nil)
	if job.failed != "" {
		t.Fatalf("the release job failed at %q (exit %d)", job.failed, job.code)
	}
	calls := ghCalls(t, ghLog)
	if len(calls) != 1 || strings.Join(calls[0].Args[:3], " ") != "release create "+releaseVersion {
		t.Fatalf("gh calls %+v, want the tag's release created", calls)
	}
	plugin := "dist/pulumi-resource-clusterplane-" + releaseVersion + "-" + strings.ReplaceAll(platform, "/", "-") + ".tar.gz"
	for _, asset := range []string{plugin, "dist/SHA256SUMS", "dist/schema.json", "dist/clusterplane-clusterplane-0.0.1-test.tgz"} {
		if !slices.Contains(calls[0].Args, asset) {
			t.Errorf("the release does not publish %s: %v", asset, calls[0].Args)
		}
	}
}
