// Package wordcheck holds a test that keeps the deploy pipeline from deciding by the words of a
// reason: code that builds or shows an outcome knows what the outcome says from its types
// (outcome.Status, outcome.Verdict, outcome.Reason and the fields beside them), never by
// searching the text that says it to people.
package wordcheck
