package intakeflow

// ReadMembers is readMembers, for the external tests.
var ReadMembers = readMembers
