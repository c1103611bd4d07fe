package digitaloceanprovider

// RequestsPerMinute is DigitalOcean's API rate limit: 250 requests a minute per token (and 5,000
// an hour), as its API reference says under "Rate Limit" (docs.digitalocean.com/reference/api).
// The provider plugins' requests count against it as much as clusterplane's own.
const RequestsPerMinute = 250
