package cloudfacts

import (
	"net"
	"net/url"
	"os"
	"strings"

	"github.com/pkg/errors"
)

// This file is what a cloud's environment is: its name, the environment variables a token and
// an API URL fall back to, its own API, and the one rule for which token may go to which API
// (Resolve). Each cloud's own values are its facts' (pkg/cloudfacts/<cloud>, Env), so that a new
// cloud writes them there and nothing here.

// Where the sandbox keeps its loopback clouds.
const (
	// SandboxEnv is set, to its folder, in what `clusterplane sandbox` runs: there a stack reaches
	// only the sandbox's loopback clouds, through the environment.
	SandboxEnv = "CLUSTERPLANE_SANDBOX"
	// SandboxDir is the sandbox's folder without --dir or $CLUSTERPLANE_SANDBOX: in the current
	// directory, beside the manifests it is used with, as .terraform is.
	SandboxDir = ".clusterplane-sandbox"
)

// Env names a cloud and the environment variables its settings fall back to.
type Env struct {
	// Name is the cloud as messages say it, e.g. "DigitalOcean".
	Name string
	// TokenEnv and URLEnv hold the token and the API URL of the environment.
	TokenEnv, URLEnv string
	// API is the cloud's own API, where a token goes when neither the provider config nor URLEnv
	// names another.
	API string
	// Probe is a path of the API that answers a GET cheaply, asked whether the API takes
	// requests now (a 429 says how long to wait).
	Probe string
}

// OwnTokenRule says why an API URL given in a provider config needs the token given beside it.
// The validator shows it at providerConfig.apiUrl; Resolve's refusal says the same.
func (c Env) OwnTokenRule() string {
	return "needs its own apiToken beside it, even when it names " + c.Name + "'s own API or the URL in " + c.URLEnv +
		": the token in " + c.TokenEnv + " is never sent to an API URL a stack input names (leave apiUrl out to use " +
		c.URLEnv + ")"
}

// SandboxRule says why a provider config with its own token or API URL is refused inside the
// sandbox: either would take the stack somewhere other than the sandbox's loopback clouds.
func (c Env) SandboxRule() string {
	return "providerConfig sets apiToken or apiUrl, which the clusterplane sandbox refuses: inside it a stack " +
		"reaches only the sandbox's loopback " + c.Name + " API, through " + c.TokenEnv + " and " + c.URLEnv +
		"; leave providerConfig empty to deploy this manifest into the sandbox"
}

// Sandboxed refuses, inside the clusterplane sandbox, a provider config's own token or API URL
// (the sandbox's own, from the environment, aside): nil outside the sandbox.
func (c Env) Sandboxed(token, apiURL string) error {
	if os.Getenv(SandboxEnv) != "" && ((token != "" && token != os.Getenv(c.TokenEnv)) ||
		(apiURL != "" && apiURL != os.Getenv(c.URLEnv))) {
		return errors.New(c.SandboxRule())
	}
	return nil
}

// HTTPSRule says why an API URL given in a provider config must be https.
const HTTPSRule = "must be https (plain http only to a loopback host written in full: 127.x.y.z, ::1 or localhost): " +
	"the API token would otherwise cross the network readable"

// Resolve is the one place that decides which API token goes to which API URL, given the
// provider config's own token and URL (either may be empty). It returns the token and URL to call
// with; an empty URL means the cloud's own API (the caller's or the provider's default).
//
// A token from the environment goes only with the URL from the environment (or the cloud's own
// API): were it sent to a URL a manifest names, anyone who can get a manifest deployed (a pull
// request in CI) would receive it. So a config's URL needs the config's token, and it must be
// https unless it is a loopback address, where a test cloud listens. The validator refuses the
// same manifests before anything runs; Resolve holds for callers that skip it (Go programs
// calling New directly, a provider configured by hand). Neither the token nor the URL appears in
// an error: a URL may carry credentials of its own.
func (c Env) Resolve(token, apiURL string) (string, string, error) {
	// Inside the sandbox only the environment's token and URL, the sandbox's, may be used: a
	// program hands them on to a plugin's config (pkg/cloud/civo/pulumiprovider.Plugin), a
	// manifest's own would reach elsewhere.
	if err := c.Sandboxed(token, apiURL); err != nil {
		return "", "", err
	}
	if apiURL == "" {
		if token == "" {
			token = os.Getenv(c.TokenEnv)
		}
		return token, os.Getenv(c.URLEnv), nil
	}
	if !SecureURL(apiURL) {
		return "", "", errors.New("providerConfig.apiUrl: " + HTTPSRule)
	}
	if token == "" {
		return "", "", errors.New("providerConfig.apiUrl: " + c.OwnTokenRule())
	}
	return token, apiURL, nil
}

// SecureURL reports whether a token may be sent to raw: an absolute https URL, or an http one
// whose host is a loopback address (127.0.0.0/8, ::1) or localhost.
func SecureURL(raw string) bool {
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" {
		return false
	}
	switch strings.ToLower(u.Scheme) {
	case "https":
		return true
	case "http":
		return Loopback(u.Hostname())
	}
	return false
}

// Loopback reports whether host is this machine's own: localhost or a loopback address. A name
// other than localhost is not resolved: what it resolves to can change after the check.
func Loopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}
