// Package intake is the domain of the Introductions service: what an
// introduction is, the states it moves through, the ledger entry every intake
// decision leaves, the error codes clients see, and the small interfaces
// (store, clock, keys) the domain needs from the outside world.
//
// It imports no Google Cloud package; adapters under shared/ implement its
// interfaces and translate their vendors' errors into *Error values.
package intake
