"""The result codes of Strategic Initiative's orders and the kinds of its
events (stable strings: reports and JSON carry them, templates word them).

Moving (movement.py) and attacking (combat.py) share the codes: an attack
on an empty city is a capture, and an attack's units move first.
"""

from __future__ import annotations

import enum


class Reason(enum.StrEnum):
    """What became of one order. The facts each carries are listed beside
    it (squares by name, units by id, nations by player)."""

    # done
    MOVED = "moved"  # units, square, cost, left: every unit reached the square
    MOVED_PART = "moved_part"  # ... arrived, going, failed {unit: why}: some could not go
    STANDING = "standing"  # ... arrived, going: the rest goes on as mobility allows
    CAPTURED = "captured"  # ... city, by (the unit), hp (it has left)
    ATTACKED = "attacked"  # units, square, attacks, destroyed, lost, going, failed
    DESTROYED = "destroyed"  # as attacked, and no enemy is left in the square
    NOT_ATTACKED = "not_attacked"  # units, square, why {unit: no_mobility/no_ammo/...}
    CANCELLED = "cancelled"  # unit, square (the standing order's target)
    # interception and interdiction (intercept.py): units fired on as they moved
    STOPPED = "stopped"  # units, square, cost, left, arrived, going, failed, stopped (the
    # units intercepted or interdicted on the way: they stop there, the rest of their move
    # dropped)
    ATTACK_STOPPED = "attack_stopped"  # as attacked, and stopped (their part dropped)
    # refused (nothing happens, nothing is paid)
    NOT_YOUR_UNIT = "not_your_unit"  # unit
    CANNOT_MOVE = "cannot_move"  # unit, unit_type: air units move with the second part
    ALREADY_THERE = "already_there"  # units, square
    NO_PATH = "no_path"  # units, square: no way over the terrain
    BLOCKED = "blocked"  # units, square: the way is held by others' units or ships
    OCCUPIED = "occupied"  # square, nations, at_war: "attack it instead"
    NOT_AT_WAR = "not_at_war"  # square, nations (and city): war is needed
    CANNOT_CAPTURE = "cannot_capture"  # units, square, city, hp_needed
    CANNOT_ATTACK = "cannot_attack"  # units, square: none may attack what is there
    NOTHING_TO_ATTACK = "nothing_to_attack"  # square
    AS_NEAR_AS_CAN_BE = "as_near_as_can_be"  # units, square: a ship of their side holds it
    NO_AMMO = "no_ammo"  # units, square, why {unit: no_ammo}: none next to it could strike
    CANNOT_PAY = "cannot_pay"  # cost, left (command points)
    REFUSED_EACH = "refused_each"  # units, refused [{code, facts}]: every unit of a group
    # refused for its own reason (groups.py)
    NO_STANDING = "no_standing"  # unit
    # builds (economy.py: its BuildRefused codes are these values)
    BUILD_SET = "build_set"  # city, kind, designation
    NEXT_BUILD_SET = "next_build_set"  # city, kind
    NEXT_BUILD_CLEARED = "next_build_cleared"  # city
    NO_SUCH_CITY = "no_such_city"  # city
    NOT_YOUR_CITY = "not_your_city"  # city
    NO_SUCH_UNIT_TYPE = "no_such_unit_type"  # kind
    TECH_TOO_LOW = "tech_too_low"  # kind, needed, tech
    NEXT_TECH_TOO_HIGH = "next_tech_too_high"  # kind, needed, most
    PORT_NEEDS_COAST = "port_needs_coast"  # city, kind
    NEXT_NOT_BUILT_THERE = "next_not_built_there"  # city, kind, built_in, designation
    NAME_A_UNIT = "name_a_unit"  # city, designation, units
    BASE_IS_NOT_NEXT = "base_is_not_next"  # city
    # diplomacy (diplomacy.py: its DeclareRefused codes are these values)
    DECLARED = "declared"  # toward, level: in effect at once
    DECLARED_WITH_NOTICE = "declared_with_notice"  # toward, level, due (the tick it takes effect)
    NO_SUCH_NATION = "no_such_nation"  # toward
    TOWARD_YOURSELF = "toward_yourself"
    NO_SUCH_LEVEL = "no_such_level"  # level, levels
    ALREADY_DECLARED = "already_declared"  # toward, level, due
    # carrying and engineers (part 2: carrying.py, engineering.py)
    LOADED = "loaded"  # units, carrier, square, failed {unit: why}, stayed (their ids), cost,
    # left, from {unit: the square it set off from}
    LOADED_PART = "loaded_part"  # as loaded: some could not step aboard
    UNLOADED = "unloaded"  # units, square, cost, left: set down in the carrier's square
    TERRAIN_CHANGED = "terrain_changed"  # unit, square, terrain (land/water), cost, left
    CITY_FOUNDED = "city_founded"  # unit, square, city, designation, kind, cost, left
    NOT_LOADED = "not_loaded"  # units, carrier, square, failed, stayed, from: none aboard
    NAME_THE_CARRIER = "name_the_carrier"  # unit, square, carriers (0 or several there)
    CANNOT_CARRY = "cannot_carry"  # unit, unit_type, carrier, carrier_type
    ALREADY_ABOARD = "already_aboard"  # unit, unit_type, carrier, carrier_type
    NOT_BESIDE = "not_beside"  # unit, unit_type, carrier, carrier_type, square
    NO_ROOM = "no_room"  # carrier, carrier_type, room (places left), units
    SAY_WHERE = "say_where"  # units, square (at sea: nowhere to set them down)
    NOT_ABOARD = "not_aboard"  # unit: neither carried nor carrying
    CARRIED_CANNOT_ATTACK = "carried_cannot_attack"  # units (and from groups.py: unit,
    # carrier, carrier_type, at (its square), square (the target))
    TAKE_OFF_FIRST = "take_off_first"  # unit, carrier, at, square, takeoff: a carried plane
    # ordered to attack takes off by a move first (to ``takeoff``, next to the target)
    UNLOAD_BESIDE = "unload_beside"  # unit, units (the riders), carrier, at, square, distance,
    # beside: land units step ashore only next to their transport at sea, and no way over
    # land leads from there to the square: it sails to ``beside`` first
    NOT_AN_ENGINEER = "not_an_engineer"  # unit, unit_type
    NO_MOBILITY = "no_mobility"  # unit, needed, mobility
    ALREADY_TERRAIN = "already_terrain"  # unit, square, terrain
    NOT_ALONE = "not_alone"  # unit, square, units (the others there)
    CITY_THERE = "city_there"  # unit, square, city
    NOTHING_ALIKE_NEAR = "nothing_alike_near"  # unit, square, terrain: none of it next to it
    FOREIGN_UNITS = "foreign_units"  # unit, square, nations
    NEXT_TO_CITY = "next_to_city"  # unit, square, city, nation (another nation's city)
    NO_LAND_NEAR = "no_land_near"  # unit, square: a city on water needs land next to it
    NAME_TAKEN = "name_taken"  # name (another city's, or too like one)
    # air units (si-air: air.py, movement.py fuel, firing.py bombing and flak)
    CRASHED = "crashed"  # as moved (or moved_part), and crashed: the planes lost for want of fuel
    REFUELLING = "refuelling"  # units, squares (each unit's refuelling place, in order), cost,
    # left, arrived, going, failed: each flies to the nearest place it can refuel
    BEYOND_FUEL = "beyond_fuel"  # unit, fuel, distance, square: the way is longer than its fuel
    CANNOT_REFUEL = "cannot_refuel"  # unit, unit_type: no air unit, or one that needs no fuel
    NO_REFUELLING_PLACE = "no_refuelling_place"  # unit, fuel, square (where it is): none in reach
    # launching (part 2: launch.py)
    SATELLITE_LAUNCHED = "satellite_launched"  # unit, square, radius, cost, left
    ICBM_LAUNCHED = "icbm_launched"  # unit, from, square, blast, cities, war (nations), cost, left
    NOT_LAUNCHABLE = "not_launchable"  # unit, unit_type: only satellites and ICBMs are
    OUT_OF_RANGE = "out_of_range"  # unit, unit_type, square, range, distance
    # the rest
    STATUS = "status"  # a situation report follows
    NOT_IN_GAME = "not_in_game"  # the nation is out of the game

    @property
    def succeeded(self) -> bool:
        return self in SUCCEEDED


SUCCEEDED = frozenset(
    {
        Reason.MOVED,
        Reason.MOVED_PART,
        Reason.STANDING,
        Reason.CAPTURED,
        Reason.ATTACKED,
        Reason.DESTROYED,
        Reason.NOT_ATTACKED,
        Reason.CANCELLED,
        Reason.STOPPED,
        Reason.ATTACK_STOPPED,
        Reason.BUILD_SET,
        Reason.NEXT_BUILD_SET,
        Reason.NEXT_BUILD_CLEARED,
        Reason.DECLARED,
        Reason.DECLARED_WITH_NOTICE,
        Reason.LOADED,
        Reason.LOADED_PART,
        Reason.UNLOADED,
        Reason.TERRAIN_CHANGED,
        Reason.CITY_FOUNDED,
        Reason.STATUS,
        Reason.CRASHED,
        Reason.REFUELLING,
        Reason.SATELLITE_LAUNCHED,
        Reason.ICBM_LAUNCHED,
    }
)


class Happened(enum.StrEnum):
    """Kinds of the events of moving and fighting. Every event but the
    private notice STANDING_DROPPED has a ``square`` fact (by name) where it
    happened; every one has ``visible_to`` the nations involved (the tick
    widens it to those who see that square)."""

    MOVED = "moved"  # unit, unit_type, nation, from, square, path
    CAPTURED = "captured"  # city, square, unit, nation, from_nation, hp
    ATTACK = "attack"  # unit, unit_type, nation, target, target_type, target_nation,
    # damage, hp, from, square, counter (True for a counter-attack), and the draw: draw, low,
    # high, factors (what multiplied it), halved, minimal (why A was 2, or None), roll (in words)
    CANNON = "cannon"  # city, nation, target, target_type, target_nation, damage, hp, square,
    # at (the ship's square), and the draw as for attack
    DESTROYED = "destroyed"  # unit, unit_type, nation, by, by_nation, square, from
    # what a witness is told who sees only one side of a fight (tick.fog):
    HIT_FROM_THE_FOG = "hit_from_the_fog"  # an attack; target, target_type, target_nation,
    # damage, hp, square
    DESTROYED_FROM_THE_FOG = "destroyed_from_the_fog"  # unit, unit_type, nation, square
    CANNON_INTO_THE_FOG = "cannon_into_the_fog"  # city, nation, square
    # carrying and engineers (part 2)
    BOARDED = "boarded"  # unit, unit_type, nation, carrier, carrier_type, square
    SET_DOWN = "set_down"  # unit, unit_type, nation, carrier, carrier_type, square
    LOST_ABOARD = "lost_aboard"  # unit, unit_type, nation, carrier, carrier_type, square:
    # lost with its carrier (after the carrier's DESTROYED)
    TERRAIN_CHANGED = "terrain_changed"  # unit, unit_type, nation, square, terrain
    CITY_FOUNDED = "city_founded"  # unit, unit_type, nation, square, city
    # interception and interdiction (intercept.py); the nations involved see the
    # way out, a witness of the square sees who fought whom (tick.SEEN_AS):
    INTERCEPTED = "intercepted"  # unit (the fighter), unit_type, nation, target (the mover),
    # target_type, target_nation, square, from, way, to, back, mobility, fuel (paid)
    INTERDICTED = "interdicted"  # the same, of a ship or naval bomber against a ship
    COAST_FIRE = "coast_fire"  # unit (a tank), unit_type, nation, target, target_type,
    # target_nation, square (the ship's), from (the tank's)
    INTERCEPTION_SEEN = "interception_seen"  # unit, unit_type, nation, target, target_type,
    # target_nation, square: what a witness is told of an interception
    INTERDICTION_SEEN = "interdiction_seen"  # the same, of an interdiction
    # air units (si-air)
    CRASHED = "crashed"  # unit, unit_type, nation, square: no fuel, away from a refuelling place
    FLAK = "flak"  # by (a city's name or a ship's id), by_type (designation or unit type), nation,
    # target, target_type, target_nation, damage, hp, square (the flak's), at (the plane's),
    # and the draw (draw, low, high, factors, halved, roll)
    BOMBED = "bombed"  # unit, unit_type, nation, target, target_type, target_nation, percent,
    # damage, hp, from, square, roll: a bomber's hit on one unit of a land square
    FLAK_INTO_THE_FOG = "flak_into_the_fog"  # by, nation, square: at a plane out of sight
    # submarines, satellites and ICBMs (part 2: sight.py, launch.py)
    LAUNCHED = "launched"  # an ICBM came down: unit, unit_type, nation, square, blast (to the
    # launcher and every nation with a unit or city in the blast; never where it was launched from)
    RETALIATION = "retaliation"  # the same, launched by MAD; score, against (the nation
    # whose ICBM devastated its city)
    DEVASTATED = "devastated"  # city, square, nation (who held it, None: neutral), by, by_nation
    WAR_BY_DEVASTATION = "war_by_devastation"  # nation, toward (private: no square)
    NO_RETALIATION = "no_retaliation"  # nation, against: it has no ICBM (private: no square)
    HELD_FIRE = "held_fire"  # nation, against, score (the best found), needed (96): no
    # retaliation, nothing it sees scores enough (private: no square)
    SIGHTED = "sighted"  # unit, unit_type, nation (the submarine's), by, by_nation, square:
    # a ship or plane tried to enter a hidden submarine's square and found it
    STANDING_DROPPED = (
        "standing_dropped"  # nation, units, target, action, why, seq, line (private: no square)
    )
