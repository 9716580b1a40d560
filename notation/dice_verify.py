#!/usr/bin/env python3
"""Recompute and check the dice of a pbem game (scheme pbem-dice-v1, see notation/dice.md).

Usage:
  python3 dice_verify.py --seed HEX --game-id ID [--salt TEXT ...] [--commitment HEX]
                         [--start K] DIE ...

DIE is `d6` (or just `6`) to print the next roll of a six-sided die, or `d6=4` to also check
that the recorded value was 4. Rolls are numbered from K (default 0), one per DIE, in order.
ID is the game's number, exactly its record's [GameId] tag: 42 for the game the mails call #42.
Give the salts exactly as the game lists them, in that order. Exit status 0 when the commitment
(if given) and every checked roll match, 1 otherwise. Python 3 standard library only.
"""
import argparse
import hashlib
import sys

TAG = b"pbem-dice-v1"


def u32(n):
    return n.to_bytes(4, "big")


def roll(seed, salts, game_id, k, sides):
    """Roll k (0-based, over the whole game) with `sides` sides: a value in 1..sides."""
    if not 2 <= sides <= 1000:
        raise ValueError("the scheme rolls dice of 2..1000 sides, not %d" % sides)
    prefix = TAG + seed + u32(len(salts))
    for salt in salts:
        data = salt.encode("utf-8")
        prefix += u32(len(data)) + data
    gid = game_id.encode("utf-8")
    prefix += u32(len(gid)) + gid + k.to_bytes(8, "big") + u32(sides)
    limit = 2**64 - (2**64 % sides)  # largest multiple of sides not above 2**64
    attempt = 0
    while True:
        digest = hashlib.sha256(prefix + u32(attempt)).digest()
        x = int.from_bytes(digest[:8], "big")
        if x < limit:
            return x % sides + 1
        attempt += 1


def main():
    p = argparse.ArgumentParser(description="Recompute the dice of a pbem game.")
    p.add_argument("--seed", required=True, help="the revealed seed, 64 hex digits")
    p.add_argument("--game-id", required=True, help="the record's [GameId]: 42 for game #42")
    p.add_argument("--salt", action="append", default=[], help="one salt; repeat, in order")
    p.add_argument("--commitment", help="the commitment from the welcome mail")
    p.add_argument("--start", type=int, default=0, help="index k of the first DIE")
    p.add_argument("dice", nargs="+", metavar="DIE", help="d6, or d6=4 to check a value")
    args = p.parse_args()

    seed = bytes.fromhex(args.seed.strip())
    if len(seed) != 32:
        sys.exit("a seed is 32 bytes (64 hex digits), got %d bytes" % len(seed))
    all_ok = True
    commitment = hashlib.sha256(seed).hexdigest()
    print("commitment of seed: " + commitment)
    if args.commitment is not None:
        matches = commitment == args.commitment.strip().lower()
        print("commitment: " + ("ok" if matches else "MISMATCH"))
        all_ok = all_ok and matches

    for k, die in enumerate(args.dice, start=args.start):
        sides_text, _, recorded = die.lower().lstrip("d").partition("=")
        sides = int(sides_text)
        if not 2 <= sides <= 1000:
            print("roll %d: d%d is not a die of the scheme (2..1000 sides)" % (k, sides))
            all_ok = False
            continue
        value = roll(seed, args.salt, args.game_id, k, sides)
        line = "roll %d: d%d = %d" % (k, sides, value)
        if recorded:
            matches = int(recorded) == value
            line += " (recorded %s: %s)" % (recorded, "ok" if matches else "MISMATCH")
            all_ok = all_ok and matches
        print(line)
    sys.exit(0 if all_ok else 1)


if __name__ == "__main__":
    main()
