// Package capscheck holds the test that no code outside tests asks a stackstate.Backend or a
// stackstate.Stack for another interface by a type assertion. What a backend or a stack can do
// is a method of Backend or Stack, which every one has: a capability checked by assertion is
// silently lost by any wrapper that embeds the interface, as a test double once stopped reading
// records so.
package capscheck
