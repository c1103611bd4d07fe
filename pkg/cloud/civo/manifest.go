package civo

import "regexp"

// TokenShape: Civo publishes no shape of its API keys, so none is looked for.
func (Driver) TokenShape() *regexp.Regexp { return nil }

// TagsIgnoreCase: the Civo kinds send no tags to Civo.
func (Driver) TagsIgnoreCase() bool { return false }
