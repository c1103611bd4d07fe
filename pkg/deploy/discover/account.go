package discover

import (
	"fmt"

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
