package autostack

import (
	"context"
	"os"
	"regexp"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/clusterplane/clusterplane/pkg/deploy/stackstate"
	"github.com/clusterplane/clusterplane/pkg/redact"
	"github.com/pkg/errors"
	"github.com/pulumi/pulumi/sdk/v3/go/auto"
)

// classify turns an Automation API error of op into the deploy package's typed errors. The
// Automation API types some faults (a missing stack, a lock); the rest only the engine's words
// say, read here and nowhere else: the error's text carries the CLI's output. cause is the
// engine's own error diagnostics of the operation, when it streamed any.
func classify(ctx context.Context, op string, err error, cause string, b *Backend, s *stackOf) error {
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return errors.Wrap(stackstate.ErrCancelled, ctx.Err().Error())
	}
	// The engine quotes what it was given (the backend's URL, password and all, when it cannot
	// open it): every word of it that leaves this package is redacted first.
	r := b.redactor()
	text := r.String(err.Error())
	cause = r.String(cause)
	switch {
	case auto.IsSelectStack404Error(err), strings.Contains(text, "no stack named"):
		return stackstate.ErrNotDeployed
	case auto.IsConcurrentUpdateError(err), strings.Contains(text, "the stack is currently locked"):
		return &stackstate.LockedError{Cancel: s.CancelCommand()}
	case strings.Contains(text, "incorrect passphrase"), strings.Contains(text, "passphrase must be set"):
		variable := PassphraseEnv
		if os.Getenv(PassphraseEnv) == "" && os.Getenv(PassphraseFileEnv) != "" {
			variable = PassphraseFileEnv
		}
		return &stackstate.PassphraseError{Variable: variable}
	case strings.Contains(text, "marked for protection"), strings.Contains(text, "because it is protected"):
		return &stackstate.ProtectedError{Resources: protectedResources(text)}
	case strings.Contains(text, "pending operations") && !strings.Contains(text, "pending create"):
		return &stackstate.PendingOperationsError{}
	case tornCheckpoint(text, b, s) != nil:
		return tornCheckpoint(text, b, s)
	case secretsManagerFailure.MatchString(text):
		return &stackstate.SecretsProviderError{Provider: r.String(b.secrets), Cause: firstError(text)}
	}
	// A module's refusal of the manifest (a Kubernetes version it will not deploy over the live
	// cluster) is a refused change, which exits 3, not a failure of the engine, which exits 1.
	if refused := stackstate.ModuleRefusal(text + "\n" + cause); refused != nil {
		return refused
	}
	status := cloudStatus(text + "\n" + cause)
	if cause == "" {
		cause = firstError(text)
	}
	if m := missingPlugin.FindStringSubmatch(text + "\n" + cause); m != nil {
		cause += " (" + installHint(m[1], m[2]) + ")"
	}
	return &stackstate.EngineError{Command: op, Cause: cause, Status: status}
}

// cloudAnswer matches a cloud's API error as its client words it, which the bridged provider
// quotes: DigitalOcean's (godo) `POST https://api.digitalocean.com/v2/kubernetes/clusters: 500
// (request "…") …`, and Civo's (civogo's DecodeError, for an answer it has no name for: a 429 or
// a 5xx) `Unknown error response - status: 429 Too Many Requests, code: 429, …`.
var cloudAnswer = regexp.MustCompile(`\b(?:GET|POST|PUT|PATCH|DELETE) https?://\S+: ([1-5][0-9][0-9])\b|` +
	`\bUnknown error response - status: ([1-5][0-9][0-9])\b`)

// cloudStatus is the HTTP status of the cloud's answers the engine's words quote, 0 for none:
// the first that asking again would not mend (a 4xx other than 429), else the last, so that an
// operation is run again only when every answer quoted was "not now".
func cloudStatus(text string) int {
	status := 0
	for _, m := range cloudAnswer.FindAllStringSubmatch(text, -1) {
		status, _ = strconv.Atoi(m[1] + m[2])
		if e := (stackstate.EngineError{Status: status}); !e.Transient() {
			return status
		}
	}
	return status
}

// missingPlugin matches the engine's words for a resource plugin it cannot find, which name no
// way to get it.
var missingPlugin = regexp.MustCompile(`no resource plugin 'pulumi-resource-([a-z0-9-]+)' found(?: in the workspace at version v([0-9][0-9A-Za-z.+-]*))?`)

// providerSDKs are the Go SDK modules of the provider plugins the programs use, by plugin name
// (the cloud's ID), as the clouds' drivers say them: a plugin's version is its SDK's.
var providerSDKs = func() map[string]string {
	out := map[string]string{}
	for _, d := range clouds.All() {
		out[string(d.ID())] = d.ProviderSDK()
	}
	return out
}()

// installHint says how to install the plugin name at version, the one the engine looked for, or
// when it named none the one this build's programs use.
func installHint(name, version string) string {
	if info, ok := debug.ReadBuildInfo(); ok && version == "" {
		for _, dep := range info.Deps {
			if dep.Path == providerSDKs[name] {
				version = strings.TrimPrefix(dep.Version, "v")
			}
		}
	}
	if version == "" {
		version = "VERSION"
	}
	if _, ok := providerSDKs[name]; !ok {
		return "build it with `make engine`, or install it with `pulumi plugin install resource " + name + " " + version + "`"
	}
	return "install it with `pulumi plugin install resource " + name + " " + version + "`, or build the pinned plugins with `make engine`"
}

// secretsManagerFailure matches the engine's words when the stack's secrets provider cannot be
// used (a wrong URL, no credentials for the key).
var secretsManagerFailure = regexp.MustCompile(`(?i)(secrets manager|secrets provider|unknown secrets provider|` +
	`constructing secrets manager|unsupported secrets provider)`)

// protected reads the engine's refusal for the resources it names: `unable to replace resource
// "urn:pulumi:...::type::name"`, or `resource "urn:..." cannot be deleted`.
var protected = regexp.MustCompile(`(?:unable to (?:replace|delete) resource|resource) "?(urn:pulumi:[^"\s]+)"?\s+(?:as it is currently marked|cannot be deleted)`)

func protectedResources(text string) []string {
	seen := map[string]bool{}
	var out []string
	for _, m := range protected.FindAllStringSubmatch(text, -1) {
		urn := m[1]
		parts := strings.Split(urn, "::")
		what := urn
		if len(parts) >= 2 {
			types := strings.Split(parts[len(parts)-2], "$")
			what = types[len(types)-1] + " " + parts[len(parts)-1]
		}
		if !seen[what] {
			seen[what] = true
			out = append(out, what)
		}
	}
	return out
}

// firstError is the first error the CLI printed ("error: ..."), else the error's first line.
func firstError(text string) string {
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimPrefix(strings.TrimSpace(line), "stderr: ")
		if rest, ok := strings.CutPrefix(line, "error: "); ok && !strings.HasPrefix(rest, "an unhandled error occurred") &&
			rest != "update failed" && rest != "preview failed" {
			return cleanDiagnostic(rest)
		}
	}
	first, _, _ := strings.Cut(text, "\n")
	return first
}

// noise is what the bridged providers put around the cloud's answer: the Terraform SDK's file
// and logger, the provider's name and version, go-multierror's wrapping.
var noise = []*regexp.Regexp{
	regexp.MustCompile(`sdk-v2/provider2\.go:\d+: sdk\.helper_schema: `),
	regexp.MustCompile(`: provider=[a-z]+@[0-9.]+`),
	regexp.MustCompile(`(?m)^\s*\* `),
	regexp.MustCompile(`\d+ errors? occurred:\s*`),
	regexp.MustCompile(`an unhandled error occurred:\s*`),
}

// cleanDiagnostic is an engine diagnostic without the noise around the cause.
func cleanDiagnostic(message string) string {
	for _, n := range noise {
		message = n.ReplaceAllString(message, "")
	}
	return strings.TrimSpace(message)
}

// redactor removes the run's secrets from the engine's words: those of the environment, and the
// password of the backend's URL, which Options may give instead.
func (b *Backend) redactor() *redact.Redactor {
	if b == nil {
		return redact.FromEnv()
	}
	return redact.FromEnv().WithURL(b.url)
}

// envBackend is the backend the environment names, "" for none.
func envBackend() string { return os.Getenv(BackendEnv) }
