// Package intake is the domain of the service: what an introduction is, its
// states, the ledger entry every intake decision leaves, the rate rules, the
// error codes clients see, and the small interfaces (store, clock, keys) the
// domain needs. It imports no Google Cloud package. README.md has the rules.
package intake
