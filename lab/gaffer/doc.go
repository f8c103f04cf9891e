// Package gaffer is a faithful baseline for the crowd scene: the bit-packer
// of Glenn Fiedler's article "Snapshot Compression" (Gaffer On Games, 4
// January 2015, https://gafferongames.com/post/snapshot_compression/),
// written from the article's text, so that the bytes of Tether's replication
// layer (package replica) can be stated as a ratio to a published reference.
//
// It codes the bodies of a replica.World, each a position and a rotation,
// per client, against the snapshot that client acknowledged, as the article
// does by the end of its hand-rolled bit-packing: bounded, quantised
// positions; rotations as the smallest three; a bit per body saying whether
// it changed, or the indices of the changed bodies when shorter; a position
// changed and a rotation changed bit; positions and rotations as differences
// from the baseline in the article's small/large codes when they fit, whole
// otherwise. There is no prediction (a body's baseline is its state in the
// acknowledged snapshot, as is) and no entropy coding: the article leaves
// both to later work (Fabian Giesen's arithmetic coder, predicted
// orientations). Velocity is not sent: the article drops it at 60 snapshots
// a second, where linear interpolation is good enough.
//
// # What was kept, and what adapted to the crowd
//
// Kept from the article: 512 steps a metre for a position; the smallest
// three of 9 bits each in [-1/√2, 1/√2] with a 2-bit index of the largest;
// the position's and the rotation's small/large codes (5 bits small, 9 and 8
// bits large), which the article fitted to its own data by a greedy search
// (fitting them again to the crowd would make another coder than the
// published one); the code of an offset between changed indices (4, 7 or 12
// bits); the choice between changed bits and indices by a mock encoding; a
// changed bit each for position and rotation, both sent even though they
// cannot both be 0; the header's baseline of 16 bits (left out when the
// initial-state flag is set) and that flag. The article extends a large
// range past the small one and leaves how as an exercise; here both the
// position's and the rotation's are extended (below). The ring of baselines
// keeps Ring snapshots, as package replica does.
//
// Adapted: the position's bounds are Config fields (HalfWidth, Height) whose
// zero values are the article's, ±256 m across and 32 m up (18 + 14 + 18
// bits); for the crowd, HalfWidth should be the arena's half size
// (crowd.HalfSize, 20.2 m for 1,000 spheres: 15 bits), as the article fitted
// its bounds to its own scene, and Height the article's 32 m. The
// article's z is up; Tether's worlds are Y-up, so its z bound applies to Y
// here. An index takes as many bits as the number of bodies needs (10 for
// the crowd's 1,000, as for the article's 901 cubes). The number of bodies
// is fixed and known to both sides (Config.Bodies), as the article's 901
// cubes are. The article's cube also carries an "interacting" flag, a
// property of its demo (cubes touched by the player), which the crowd has no
// counterpart of: it is not sent. The article gives no code for the count of
// changed bodies in the indexed form: it is sent on as many bits as the
// number of bodies needs. The crowd's spheres are drawn unrotated but roll
// in the physics, so their rotation is sent as the article sends a cube's:
// a world that leaves Rot zero (the identity) pays one bit per changed body
// for it.
//
// # The format, bit by bit
//
// A snapshot is one bit-packed section (wire.BitWriter: fields least
// significant bit first, the last byte padded with zero bits). Its tick is in
// the message's header, outside this package. In order:
//
//	initial    1 bit: 1 if coded against the initial state (Config.Initial),
//	           0 if against an earlier snapshot
//	base       16 bits, only if initial is 0: the baseline's tick modulo
//	           2^16; the baseline is the latest tick before the snapshot's
//	           own whose low 16 bits these are
//	layout     1 bit: 1 for a changed bit per body, 0 for indices
//
// With a changed bit per body, for every body in order of index:
//
//	changed    1 bit; if 1, the body's state follows
//
// With indices:
//
//	count      the changed bodies' number, on the bits Bodies needs
//	           (bits.Len(Bodies): 10 for 1,000)
//	then for each changed body, in increasing order of index:
//	index      the first body's on the bits an index needs
//	           (bits.Len(Bodies-1)); each later one's as the offset d >= 1
//	           from the one before: 1, then d-1 on 3 bits, for d in [1, 8];
//	           0, 1, then d-9 on 5 bits, for d in [9, 40]; 0, 0, then d on
//	           the bits of an index, for larger d
//	state      the body's state, as below
//
// The encoder takes the indices if they take no more bits than a changed bit
// per body would (Bodies), and the changed bits otherwise.
//
// A changed body's state, against its state in the baseline:
//
//	moved      1 bit: the position differs from the baseline's
//	  relative 1 bit, if moved: 1 if every coordinate's difference from the
//	           baseline's fits the relative code, then x, y, z differences
//	           each in that code; 0 for the absolute position: x + h and
//	           z + h on the bits of 2h-1, y on the bits of v-1, where
//	           h = ⌈HalfWidth·512⌉ and v = ⌈Height·512⌉ steps
//	turned     1 bit: the rotation's smallest three differ from the
//	           baseline's
//	  relative 1 bit, if turned: 1 if the largest component is the
//	           baseline's and every difference of the three fits the
//	           relative code, then the three differences in that code; 0 for
//	           the absolute rotation: the index of the largest component (in
//	           geom.Quat's order W, X, Y, Z) on 2 bits, then the other three,
//	           in order, each plus 255 on 9 bits
//
// A body is changed if its position or its rotation is; so moved and turned
// are never both 0.
//
// The relative code of a difference d: 1, then d+16 on 5 bits, for d in
// [-16, 15]; otherwise 0 and a large code c on L bits (9 for a position, 8
// for a rotation), c + 2^(L-1) sent, where c = d+16 for negative d and d-16
// otherwise: the large code reaches 16 steps further than L bits alone
// would, and no difference has two codes (the article's "exercise for the
// reader"). A position's difference is then in [-272, 272) steps (about
// ±53 cm); a rotation's in [-144, 144).
//
// Every snapshot has one encoding: the decoder rejects (wire.ErrMalformed) a
// body sent unchanged, a difference of zero, an absolute value equal to the
// baseline's or one the relative code would hold, a position out of bounds,
// smallest three longer than a unit quaternion's, indices out of order or
// range, and any bits or bytes after the section's end.
//
// # Quantisation
//
// A position coordinate is rounded to the nearest 1/512 m (half away from
// zero) and clamped into [-h, h) steps across, [0, v) up. A rotation is
// normalised (a zero or non-finite one is the identity) and packed by
// geom.PackSmallestThree on 9 bits: the largest component made positive and
// dropped, the others scaled by √2·255 and rounded into [-255, 255], so the
// identity is exact. The decoder rebuilds the largest from the unit length.
// Config.Quantise gives the state a decoder rebuilds, and the decoder's
// baselines are exactly the encoder's: no error accumulates.
//
// # Baselines
//
// The encoder keeps, per client, the last Ring snapshots it sent, quantised;
// it codes a snapshot against the one of the tick the client acknowledged if
// it still holds it, and against the initial state otherwise (a joiner,
// before its first acknowledgement, or a client whose acknowledgement is
// older than the ring). Such a snapshot is large: with Initial nil, every
// body is whole, 49 bits unrotated (about 6 KB for the crowd's 1,000
// spheres, up to 9 KB with their rotations), far over one datagram; against
// the crowd's starting grid it is 2 bytes at the start but grows with every
// sphere displaced (1.5 KB after 10 s, 4.9 KB after 60 s). The article codes
// only the first round trip against the initial state, while its scene
// still is that state, and proposes sending a receiver that lacks it one
// large block by another path. The decoder keeps the last Ring snapshots it decoded,
// each newer than the one kept before (a late, older one is decoded but not
// kept), as the client acknowledges the newest snapshot it has.
package gaffer
