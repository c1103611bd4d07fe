package digitaloceanprovider

// RequestsPerMinute is DigitalOcean's API rate limit: 250 requests a minute per token (and 5,000
// an hour), as its API reference says under "Rate Limit" (docs.digitalocean.com/reference/api).
// The provider plugins' requests count against it as much as clusterplane's own.
const RequestsPerMinute = 250

// Pages is how many requests a list of n things takes at perPage a page: one when empty, as the
// API answers an empty list in one page. Request estimates count lists with it.
func Pages(n, perPage int) int { return max(1, (n+perPage-1)/perPage) }
