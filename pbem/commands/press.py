"""Messages between the people of a game: PRESS from a player to others,
REACT from a spectator to everyone in the game."""

from __future__ import annotations

from datetime import timedelta

from pbem import anonymous
from pbem.commands.context import Context, GameContext
from pbem.commands.registry import Family, Use, Where, Who
from pbem.mail import lists
from pbem.store import PlayerRow
from pbem.words import plural

family = Family("press")

REACTION_MAX = 200  # characters


@family.command(
    "PRESS",
    who=Who.PLAYER,
    args="ALL | name,name [ANON]",
    help="the lines that follow, up to ENDPRESS, go to those players (ANON: unsigned)",
    usage="`PRESS ALL` or `PRESS ann,bob` ... `ENDPRESS`",
    doc="a message to those players, signed; add `ANON` for an unsigned one (as the game's "
    "`press` setting allows). Players may be named by what they play (`PRESS TO France, "
    "Germany` in Empire, where press is signed with the power)",
    body=True,
)
def press(ctx: GameContext, use: Use) -> None:
    ctx.say(f"line {use.line}: {_press(ctx, use.arg, list(use.body))}")
    ctx.changed = True


@family.command(
    "BROADCAST",
    who=Who.PLAYER,
    args="[ANON]",
    help="the lines that follow, up to ENDPRESS, go to every player (PRESS ALL)",
    usage="`BROADCAST` ... `ENDPRESS`",
    doc="the same as `PRESS ALL`",
    body=True,
)
def broadcast(ctx: GameContext, use: Use) -> None:
    ctx.say(f"line {use.line}: {_press(ctx, f'ALL {use.arg}'.strip(), list(use.body))}")
    ctx.changed = True


def _press(ctx: GameContext, to: str, body: list[str]) -> str:
    words = to.split()
    anonymous = bool(words) and words[-1].upper() in ("ANON", "ANONYMOUS")
    if anonymous:
        to = " ".join(words[:-1])
    allowed = ctx.cfg.press
    if allowed == "none":
        return "press not sent: this game has no press"
    if anonymous and allowed == "signed":
        return "press not sent: press in this game is signed"
    anonymous = anonymous or allowed == "anonymous"
    targets = _targets(ctx, to)
    if isinstance(targets, str):
        return targets
    text = "\n".join(body).strip()
    if not text:
        return "press not sent: it is empty"
    signed = _signed(ctx, ctx.me.name)
    sender = None if anonymous else signed
    seat = ctx.engine.seat(ctx.state, ctx.me.name) if ctx.state is not None else None
    answer = seat if seat and signed != ctx.me.name else ctx.me.name
    names = [_signed(ctx, t.name) for t in targets]
    for p in targets:
        ctx.app.queue(
            ctx.conn,
            "press",
            p.email,
            f"[{ctx.game}] press" + ("" if anonymous else f" from {signed}"),
            "press",
            {
                "game": ctx.game,
                "sender": sender,
                "answer": None if anonymous else answer,
                "text": text,
                "to": names,
            },
            reply_to=ctx.app.reply_address(p),
            auto="auto-generated",
            game=ctx.game,
        )
    if to.strip().upper() == "ALL":  # kept for the turn report
        ctx.app.store.add_press(ctx.conn, ctx.game, ctx.turn, sender, text, ctx.now)
    kind = "anonymous press" if anonymous else "press"
    return f"{kind} sent to {', '.join(sorted(names))}"


def _signed(ctx: GameContext, name: str) -> str:
    """How press names a player: signed as the game signs it; in a gunboat
    game by the power alone (pbem/anonymous.py)."""
    if ctx.state is None:
        return name
    if anonymous.hides(ctx.cfg, ctx.engine, ctx.state):
        return ctx.engine.seat(ctx.state, name) or name
    return ctx.engine.press_signature(ctx.state, name)


def _targets(ctx: GameContext, to: str) -> list[PlayerRow] | str:
    """The players a press goes to, or why it goes to nobody: named by
    their names or by what they play (a power, a colour), with or
    without a leading TO."""
    everyone = ctx.app.store.players(ctx.conn, ctx.game)
    names = {p.name.lower(): p for p in everyone if p.status == "active"}
    hide = ctx.state is not None and anonymous.hides(ctx.cfg, ctx.engine, ctx.state)
    to = to.strip()
    if to.upper().startswith("TO "):
        to = to[3:]
    if to.strip().upper() == "ALL":
        return [p for p in names.values() if p.name != ctx.me.name]
    wanted = [w.strip() for w in to.replace(";", ",").split(",") if w.strip()]
    found: list[PlayerRow] = []
    unknown = []
    for w in wanted:
        name = w.lower()
        if hide:  # gunboat: players by their powers alone
            seats = {
                (ctx.engine.seat(ctx.state, p.name) or "").lower(): k for k, p in names.items()
            }
            name = seats.get(name, "")
        elif name not in names and ctx.state is not None:
            name = (ctx.engine.player_for(ctx.state, w) or name).lower()
        if name in names:
            if names[name] not in found:
                found.append(names[name])
        else:
            unknown.append(w.lower())
    if unknown:
        return f"press not sent: no player called {', '.join(unknown)}"
    if not found:
        return "press not sent: say to whom (ALL or names)"
    return found


@family.command(
    "REACT",
    who=Who.OBSERVER,
    where=Where.SERVER,
    args="game text",
    help="spectators: a short reaction to everyone in it",
    doc="spectators of games that have them (Territory): a short reaction to everyone in "
    "it, one per cooldown",
)
def react(ctx: Context, use: Use) -> None:
    ctx.say(f"line {use.line}: " + _react(ctx, use.arg))


def _react(ctx: Context, arg: str) -> str:
    """REACT [game] text: a spectator's short reaction, relayed to every
    player and spectator of the game; one per cooldown per spectator."""
    app, store, conn, now = ctx.app, ctx.app.store, ctx.conn, ctx.now
    sender = ctx.sender.lower()
    first, _, rest = arg.partition(" ")
    game, text = (first.lower(), rest) if app.has_game(first.lower()) else (ctx.addressed, arg)
    text = " ".join(text.split())
    if not game or store.game(conn, game) is None:
        return "REACT: name the game: REACT <game> <text>"
    cfg = app.game_config(game)
    assert cfg is not None
    watching = {e.lower() for e in lists.observers(app, conn, game)}
    if sender not in watching:  # who may: checked here, where the game is known
        return f"REACT {game}: only spectators react; WATCH {game} first"
    if not text:
        return f"REACT {game}: the reaction is empty"
    if len(text) > REACTION_MAX:
        return f"REACT {game}: a reaction is at most {REACTION_MAX} characters"
    last = store.last_reaction(conn, game, sender)
    if last is not None and now - last < cfg.react_cooldown:
        wait = cfg.react_cooldown - (now - last)
        minutes, seconds = divmod(int(wait.total_seconds()) + 1, 60)
        return (
            f"REACT {game}: not sent: one reaction per {_span(cfg.react_cooldown)}; "
            f"wait {minutes} min {seconds} s"
        )
    store.add_reaction(conn, game, sender, text, now)
    to = {p.email for p in store.players(conn, game) if p.status == "active"} | watching
    for email in sorted(to - {sender}, key=str.lower):
        app.queue(
            conn,
            "reaction",
            email,
            f"[{game}] a reaction from {sender}",
            "alert",
            {"subject": f"{sender} reacts", "text": text, "game": game},
            auto="auto-generated",
            game=game,
        )
    told = plural(len(to - {sender}), "player and spectator", "players and spectators")
    return f"REACT {game}: sent to {told}"


def _span(delta: timedelta) -> str:
    minutes = int(delta.total_seconds()) // 60
    return f"{minutes} minutes" if minutes != 1 else "minute"
