package altchapow

import "time"

// MaxNumber is the base max number of Issue's challenges.
func (p *ProofOfWork) MaxNumber() int64 { return p.maxNumber }

// Lifetime is how long a challenge lives.
func (p *ProofOfWork) Lifetime() time.Duration { return p.lifetime }
