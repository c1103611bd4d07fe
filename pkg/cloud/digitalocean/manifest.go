package digitalocean

import "regexp"

// tokenShape is the published shape of DigitalOcean's API tokens, the one secret scanners look
// for: dop_v1_ (personal access token), doo_v1_ (OAuth token) or dor_v1_ (OAuth refresh token),
// then 64 hexadecimal digits.
var tokenShape = regexp.MustCompile(`do[opr]_v1_[0-9a-f]{64}`)

// TokenShape is the shape of DigitalOcean's API tokens.
func (Driver) TokenShape() *regexp.Regexp { return tokenShape }

// TagsIgnoreCase: the DigitalOcean provider keeps tags in a set that ignores case
// (terraform-provider-digitalocean's tag.TagsSchema hashes with util.HashStringIgnoreCase).
func (Driver) TagsIgnoreCase() bool { return true }

// Distribution: DigitalOcean offers one distribution, its own.
func (Driver) Distribution(string) string { return "" }
