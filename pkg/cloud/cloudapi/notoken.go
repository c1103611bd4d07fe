package cloudapi

// NoTokenError is a cloud's client's error when neither the provider config nor the environment
// holds an API token to ask with. It names the cloud, so that code which only reports the missing
// token (a look-up leaving the engine to say it) needs no list of the clouds' errors.
type NoTokenError struct {
	// Cloud names the cloud as messages say it, e.g. "Civo"; Env is the variable its token may be in.
	Cloud, Env string
}

func (e NoTokenError) Error() string {
	return "no " + e.Cloud + " API token (providerConfig.apiToken or " + e.Env + ")"
}
