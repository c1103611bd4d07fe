// Package capscheck holds the test that no code outside tests asks a stackstate.Backend, or a
// stackstate.Stack beyond the sites it lists, for another interface by a type assertion. A
// backend's abilities are methods of Backend, which every backend has: a capability checked by
// assertion is silently lost by any wrapper that embeds the interface, as a test double once
// stopped reading records so.
package capscheck
