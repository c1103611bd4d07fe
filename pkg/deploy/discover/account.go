package discover

import (
	"fmt"
	"strings"

	"github.com/clusterplane/clusterplane/pkg/cloud"
	"github.com/clusterplane/clusterplane/pkg/cloud/clouds"
	"github.com/pkg/errors"
)

// NoTokenError says that no API token is set for the cloud: discover reads an account, and
// without a token there is none to read.
type NoTokenError struct {
	// Cloud is the cloud's name as people write it; Env the variable that holds its token.
	Cloud, Env string
}

func (e *NoTokenError) Error() string {
	return fmt.Sprintf("no %s API token: set %s", e.Cloud, e.Env)
}

// Account sets o.Token and o.APIURL for the cloud o.Cloud names from the environment, as the
// providers read them, and returns the cloud's name as people write it ("DigitalOcean").
func (o *Options) Account() (string, error) {
	d, err := clouds.Get(cloud.ID(o.Cloud))
	if err != nil {
		return "", errors.Wrapf(err, "unknown cloud %q", o.Cloud)
	}
	cloud := d.Env()
	token, apiURL, err := cloud.Resolve("", "")
	if err != nil {
		return "", err
	}
	if token == "" {
		return "", &NoTokenError{Cloud: cloud.Name, Env: cloud.TokenEnv}
	}
	o.Token, o.APIURL = token, apiURL
	return cloud.Name, nil
}

// Clouds are the IDs of the clouds discover reads, as the command names them: every cloud a
// driver knows, in the drivers' order.
func Clouds() []string {
	var out []string
	for _, id := range clouds.IDs() {
		out = append(out, string(id))
	}
	return out
}

// KnownCloud is nil when a driver knows the cloud name, else an error naming it and the clouds.
func KnownCloud(name string) error {
	if _, err := clouds.Get(cloud.ID(name)); err != nil {
		return errors.Errorf("unknown cloud %q: %s", name, strings.Join(Clouds(), " or "))
	}
	return nil
}

// Environment says where each cloud's token and API URL come from, as a sentence lists them:
// "CIVO_TOKEN or DIGITALOCEAN_TOKEN, with CIVO_API_URL or DIGITALOCEAN_API_URL as".
func Environment() string {
	var tokens, urls []string
	for _, d := range clouds.All() {
		tokens, urls = append(tokens, d.Env().TokenEnv), append(urls, d.Env().URLEnv)
	}
	return strings.Join(tokens, " or ") + ", with " + strings.Join(urls, " or ") + " as"
}
