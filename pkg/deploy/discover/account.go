package discover

import (
	"fmt"

	"github.com/clusterplane/clusterplane/pkg/cloud/cloudapi"
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
	var cloud cloudapi.Cloud
	switch o.Cloud {
	case DigitalOcean:
		cloud = cloudapi.DigitalOcean
	case Civo:
		cloud = cloudapi.Civo
	default:
		return "", errors.Errorf("unknown cloud %q: %s or %s", o.Cloud, DigitalOcean, Civo)
	}
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
