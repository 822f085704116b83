"""The engine's refusals in the player's language.

The engine refuses a move with :class:`~lanopoly.IllegalAction`, whose ``code`` is the English
template the reason was made from (``"you do not own {square}"``) and whose ``fields`` are its
values (``{"square": "Boardwalk"}``). Each language here maps every template to its own text
with the same fields; :func:`explain` fills one in for a game, saying players by name instead of
seat number and amounts in the board's currency. A refusal that wraps another (``{cause}``) has
it explained too. A test checks that every template the engine has is here in every language.
"""

from __future__ import annotations

from lanopoly._core import Game, IllegalAction
from lanopoly.i18n import money

SEAT_FIELDS = frozenset({"seat"})
"""Fields holding a seat number: shown as the player's name."""
MONEY_FIELDS = frozenset({"amount", "cash", "cost", "fine", "price", "min", "max", "owed", "can_raise"})
"""Fields holding an amount of money: shown in the board's currency."""

EN: dict[str, str] = {
    # auctions
    "there is no auction": "there is no auction",
    "you have left this auction": "you have left this auction",
    "you already lead this auction with {amount}": "you already lead this auction with {amount}",
    "you cannot take part in this auction": "you cannot take part in this auction",
    "the lowest bid now is {min}": "the lowest bid now is {min}",
    "you can bid at most {max} (your cash)": "you can bid at most {max} (your cash)",
    "you have already left this auction": "you have already left this auction",
    "you lead this auction: your bid stands": "you lead this auction: your bid stands",
    "another player is placing a building": "another player is placing a building",
    "you won a hotel": "you won a hotel",
    "you won a house": "you won a house",
    "you lead this auction: resign once it is over": "you lead this auction: resign once it is over",
    "place the building you won first, then resign": "place the building you won first, then resign",
    # debts
    "you owe nothing": "you owe nothing",
    "you owe {amount} but have {cash}: sell buildings, mortgage or trade first":
        "you owe {amount} but have {cash}: sell buildings, mortgage or trade first",
    "you owe nothing: bankruptcy is only for debts you cannot pay":
        "you owe nothing: bankruptcy is only for debts you cannot pay",
    "you owe {owed} and could raise {can_raise} by selling and mortgaging: pay instead":
        "you owe {owed} and could raise {can_raise} by selling and mortgaging: pay instead",
    # buildings and mortgages
    "there is no square {number}": "there is no square {number}",
    "{square} is not a property": "{square} is not a property",
    "you do not own {square}": "you do not own {square}",
    "{square} is not a street: railways and utilities carry no buildings":
        "{square} is not a street: railways and utilities carry no buildings",
    "you need the whole colour group of {square} to build": "you need the whole colour group of {square} to build",
    "a street of this group is mortgaged: lift it first": "a street of this group is mortgaged: lift it first",
    "{square} already has a hotel": "{square} already has a hotel",
    "build evenly: another street of the group has fewer buildings than {square}":
        "build evenly: another street of the group has fewer buildings than {square}",
    "a building on {square} costs {cost}; you have {cash}": "a building on {square} costs {cost}; you have {cash}",
    "the bank has no hotels left": "the bank has no hotels left",
    "the bank has no houses left": "the bank has no houses left",
    "the bank is short: its last piece is auctioned from {amount} above the price, {cost} in all on {square}; you "
    "have {cash}":
        "the bank is short: its last piece is auctioned from {amount} above the price, {cost} in all on {square}; "
        "you have {cash}",
    "{square} has no buildings": "{square} has no buildings",
    "sell evenly: another street of the group has more buildings than {square}":
        "sell evenly: another street of the group has more buildings than {square}",
    "the bank has {houses} houses, {need} are needed to break down the hotel on {square}: sell the group down instead":
        "the bank has {houses} houses, {need} are needed to break down the hotel on {square}: "
        "sell the group down instead",
    "there is no colour group {group}": "there is no colour group {group}",
    "you do not own the whole group": "you do not own the whole group",
    "this group has only {n} streets": "this group has only {n} streets",
    "a street holds 0 to {houses} houses or a hotel ({hotel})":
        "a street holds 0 to {houses} houses or a hotel ({hotel})",
    "selling down cannot add buildings": "selling down cannot add buildings",
    "nothing to sell": "nothing to sell",
    "the group must stay even: levels may differ by one at most":
        "the group must stay even: levels may differ by one at most",
    "the bank has {houses} houses; this needs {need}": "the bank has {houses} houses; this needs {need}",
    "{square} is already mortgaged": "{square} is already mortgaged",
    "sell the buildings of the group of {square} first": "sell the buildings of the group of {square} first",
    "{square} is not mortgaged": "{square} is not mortgaged",
    "lifting the mortgage on {square} costs {cost}; you have {cash}":
        "lifting the mortgage on {square} costs {cost}; you have {cash}",
    "{square} was not just received mortgaged": "{square} was not just received mortgaged",
    # chance
    "no chance event is pending: a player must act": "no chance event is pending: a player must act",
    "dice are 1 to 6, smaller first": "dice are 1 to 6, smaller first",
    "card {card} is not in the deck now": "card {card} is not in the deck now",
    "deed {property} is not with the bank": "deed {property} is not with the bank",
    "the pending chance event needs dice": "the pending chance event needs dice",
    "the pending chance event needs a card": "the pending chance event needs a card",
    "the pending chance event needs a deed": "the pending chance event needs a deed",
    # turns
    "a game has {min} to {max} players, not {n}": "a game has {min} to {max} players, not {n}",
    "the game is over": "the game is over",
    "there is no seat {seat}": "there is no such player",
    "seat {seat} is bankrupt": "{seat} is bankrupt",
    "waiting for a chance outcome (dice or a card)": "waiting for a chance outcome (dice or a card)",
    "only a timed game can be ended early": "only a timed game can be ended early",
    "you owe money: pay it or declare bankruptcy before ending the game":
        "you owe money: pay it or declare bankruptcy before ending the game",
    "under these rules you build, sell buildings, mortgage and lift mortgages only during your turn":
        "under these rules you build, sell buildings, mortgage and lift mortgages only during your turn",
    "an auction is running: bid or pass": "an auction is running: bid or pass",
    "seat {seat} must first place the building it won": "{seat} must first place the building they won",
    "seat {seat} must first settle a debt of {amount}": "{seat} must first settle a debt of {amount}",
    "you owe money: raise it (sell, mortgage, trade) and pay, or declare bankruptcy":
        "you owe money: raise it (sell, mortgage, trade) and pay, or declare bankruptcy",
    "seat {seat} must first lift or keep the mortgaged deeds it received":
        "{seat} must first lift or keep the mortgaged deeds they received",
    "lift the mortgage (unmortgage) or keep it (keep_mortgaged) on each deed you received":
        "lift the mortgage (unmortgage) or keep it (keep) on each deed you received",
    "it is seat {seat}'s turn": "it is {seat}'s turn",
    "you cannot roll now": "you cannot roll now",
    "jail options come before your roll": "jail options come before your roll",
    "you are not in jail": "you are not in jail",
    "the fine is {fine}: raise the money first": "the fine is {fine}: raise the money first",
    'you have no "get out of jail" card': 'you have no "get out of jail" card',
    "there is nothing to buy now": "there is nothing to buy now",
    "it is seat {seat}'s decision": "it is {seat}'s decision",
    "the price is {price}; you have {cash}: raise money or decline":
        "the price is {price}; you have {cash}: raise money or decline",
    "you must roll first": "you must roll first",
    "you have received no mortgaged deed": "you have received no mortgaged deed",
    "no rent is due to you on square {number}": "no rent is due to you on square {number}",
    # trades
    "there are only {n} deeds": "there are only {n} deeds",
    "seat {seat} does not own {square}": "{seat} does not own {square}",
    "the group of {square} has buildings: sell them before trading it":
        "the group of {square} has buildings: sell them before trading it",
    "{square} awaits its lift-or-keep choice": "{square} awaits its lift-or-keep choice",
    "seat {seat} has only {cash} in cash": "{seat} has only {cash} in cash",
    "seat {seat} does not hold that jail card": "{seat} does not hold that jail card",
    "trade with another seat in the game": "trade with another player in the game",
    "that player is bankrupt": "that player is bankrupt",
    "an offer must give or ask something": "an offer must give or ask something",
    "seat {seat} has no open offer to you": "{seat} has no open offer to you",
    "you have no open offer": "you have no open offer",
    "the offer no longer holds: {cause}": "the offer no longer holds: {cause}",
}  # fmt: skip

FR: dict[str, str] = {
    # auctions
    "there is no auction": "il n'y a pas d'enchère",
    "you have left this auction": "vous avez quitté cette enchère",
    "you already lead this auction with {amount}": "vous menez déjà cette enchère avec {amount}",
    "you cannot take part in this auction": "vous ne pouvez pas participer à cette enchère",
    "the lowest bid now is {min}": "l'offre minimale est maintenant de {min}",
    "you can bid at most {max} (your cash)": "vous pouvez offrir au plus {max} (votre argent)",
    "you have already left this auction": "vous avez déjà quitté cette enchère",
    "you lead this auction: your bid stands": "vous menez cette enchère : votre offre tient",
    "another player is placing a building": "un autre joueur place un bâtiment",
    "you won a hotel": "vous avez gagné un hôtel",
    "you won a house": "vous avez gagné une maison",
    "you lead this auction: resign once it is over": "vous menez cette enchère : abandonnez une fois qu'elle est finie",
    "place the building you won first, then resign": "placez d'abord le bâtiment gagné, puis abandonnez",
    # debts
    "you owe nothing": "vous ne devez rien",
    "you owe {amount} but have {cash}: sell buildings, mortgage or trade first":
        "vous devez {amount} mais n'avez que {cash} : vendez, hypothéquez ou échangez d'abord",
    "you owe nothing: bankruptcy is only for debts you cannot pay":
        "vous ne devez rien : la faillite est réservée aux dettes impayables",
    "you owe {owed} and could raise {can_raise} by selling and mortgaging: pay instead":
        "vous devez {owed} et pourriez réunir {can_raise} en vendant et hypothéquant : payez plutôt",
    # buildings and mortgages
    "there is no square {number}": "il n'y a pas de case {number}",
    "{square} is not a property": "{square} n'est pas une propriété",
    "you do not own {square}": "vous ne possédez pas {square}",
    "{square} is not a street: railways and utilities carry no buildings":
        "{square} n'est pas une rue : gares et compagnies ne portent pas de bâtiments",
    "you need the whole colour group of {square} to build":
        "il faut tout le groupe de couleur de {square} pour construire",
    "a street of this group is mortgaged: lift it first":
        "une rue de ce groupe est hypothéquée : levez d'abord l'hypothèque",
    "{square} already has a hotel": "{square} a déjà un hôtel",
    "build evenly: another street of the group has fewer buildings than {square}":
        "construisez uniformément : une autre rue du groupe a moins de bâtiments que {square}",
    "a building on {square} costs {cost}; you have {cash}": "un bâtiment sur {square} coûte {cost} ; vous avez {cash}",
    "the bank has no hotels left": "la banque n'a plus d'hôtels",
    "the bank has no houses left": "la banque n'a plus de maisons",
    "the bank is short: its last piece is auctioned from {amount} above the price, {cost} in all on {square}; you "
    "have {cash}":
        "la banque manque de bâtiments : le dernier est mis aux enchères à partir de {amount} en plus du prix, "
        "{cost} en tout sur {square} ; vous avez {cash}",
    "{square} has no buildings": "{square} n'a pas de bâtiments",
    "sell evenly: another street of the group has more buildings than {square}":
        "vendez uniformément : une autre rue du groupe a plus de bâtiments que {square}",
    "the bank has {houses} houses, {need} are needed to break down the hotel on {square}: sell the group down instead":
        "la banque a {houses} maisons, il en faut {need} pour défaire l'hôtel de {square} : "
        "vendez plutôt le groupe d'un coup (selldown)",
    "there is no colour group {group}": "il n'y a pas de groupe de couleur {group}",
    "you do not own the whole group": "vous ne possédez pas tout le groupe",
    "this group has only {n} streets": "ce groupe n'a que {n} rues",
    "a street holds 0 to {houses} houses or a hotel ({hotel})":
        "une rue porte de 0 à {houses} maisons ou un hôtel ({hotel})",
    "selling down cannot add buildings": "vendre ne peut pas ajouter de bâtiments",
    "nothing to sell": "rien à vendre",
    "the group must stay even: levels may differ by one at most":
        "le groupe doit rester uniforme : les niveaux diffèrent d'un au plus",
    "the bank has {houses} houses; this needs {need}": "la banque a {houses} maisons ; il en faut {need}",
    "{square} is already mortgaged": "{square} est déjà hypothéquée",
    "sell the buildings of the group of {square} first": "vendez d'abord les bâtiments du groupe de {square}",
    "{square} is not mortgaged": "{square} n'est pas hypothéquée",
    "lifting the mortgage on {square} costs {cost}; you have {cash}":
        "lever l'hypothèque de {square} coûte {cost} ; vous avez {cash}",
    "{square} was not just received mortgaged": "{square} n'a pas été reçue hypothéquée à l'instant",
    # chance
    "no chance event is pending: a player must act": "aucun tirage en attente : un joueur doit jouer",
    "dice are 1 to 6, smaller first": "les dés vont de 1 à 6, le plus petit d'abord",
    "card {card} is not in the deck now": "la carte {card} n'est pas dans la pioche",
    "deed {property} is not with the bank": "le titre {property} n'est pas à la banque",
    "the pending chance event needs dice": "le tirage en attente demande des dés",
    "the pending chance event needs a card": "le tirage en attente demande une carte",
    "the pending chance event needs a deed": "le tirage en attente demande un titre",
    # turns
    "a game has {min} to {max} players, not {n}": "une partie a de {min} à {max} joueurs, pas {n}",
    "the game is over": "la partie est finie",
    "there is no seat {seat}": "ce joueur n'existe pas",
    "seat {seat} is bankrupt": "{seat} est en faillite",
    "waiting for a chance outcome (dice or a card)": "en attente du hasard (dés ou carte)",
    "only a timed game can be ended early": "seule une partie chronométrée peut finir en avance",
    "you owe money: pay it or declare bankruptcy before ending the game":
        "vous devez de l'argent : payez-le ou déclarez faillite avant de finir la partie",
    "under these rules you build, sell buildings, mortgage and lift mortgages only during your turn":
        "avec ces règles, on construit, vend des bâtiments, hypothèque et lève une hypothèque seulement pendant "
        "son tour",
    "an auction is running: bid or pass": "une enchère est en cours : enchérissez ou passez",
    "seat {seat} must first place the building it won": "{seat} doit d'abord placer le bâtiment gagné",
    "seat {seat} must first settle a debt of {amount}": "{seat} doit d'abord régler une dette de {amount}",
    "you owe money: raise it (sell, mortgage, trade) and pay, or declare bankruptcy":
        "vous devez de l'argent : réunissez-le (vendez, hypothéquez, échangez) et payez, ou déclarez faillite",
    "seat {seat} must first lift or keep the mortgaged deeds it received":
        "{seat} doit d'abord lever ou garder les hypothèques des titres reçus",
    "lift the mortgage (unmortgage) or keep it (keep_mortgaged) on each deed you received":
        "levez l'hypothèque (lever) ou gardez-la (garder) sur chaque titre reçu",
    "it is seat {seat}'s turn": "c'est le tour de {seat}",
    "you cannot roll now": "vous ne pouvez pas lancer les dés maintenant",
    "jail options come before your roll": "les choix de prison se font avant de lancer les dés",
    "you are not in jail": "vous n'êtes pas en prison",
    "the fine is {fine}: raise the money first": "l'amende est de {fine} : réunissez d'abord l'argent",
    'you have no "get out of jail" card': "vous n'avez pas de carte « libéré de prison »",
    "there is nothing to buy now": "il n'y a rien à acheter maintenant",
    "it is seat {seat}'s decision": "c'est à {seat} de décider",
    "the price is {price}; you have {cash}: raise money or decline":
        "le prix est de {price} ; vous avez {cash} : réunissez l'argent ou refusez",
    "you must roll first": "lancez d'abord les dés",
    "you have received no mortgaged deed": "vous n'avez reçu aucun titre hypothéqué",
    "no rent is due to you on square {number}": "aucun loyer ne vous est dû sur la case {number}",
    # trades
    "there are only {n} deeds": "il n'y a que {n} titres",
    "seat {seat} does not own {square}": "{seat} ne possède pas {square}",
    "the group of {square} has buildings: sell them before trading it":
        "le groupe de {square} a des bâtiments : vendez-les avant de l'échanger",
    "{square} awaits its lift-or-keep choice": "{square} attend le choix lever ou garder l'hypothèque",
    "seat {seat} has only {cash} in cash": "{seat} n'a que {cash} en liquide",
    "seat {seat} does not hold that jail card": "{seat} n'a pas cette carte de prison",
    "trade with another seat in the game": "échangez avec un autre joueur de la partie",
    "that player is bankrupt": "ce joueur est en faillite",
    "an offer must give or ask something": "une offre doit donner ou demander quelque chose",
    "seat {seat} has no open offer to you": "{seat} ne vous fait aucune offre",
    "you have no open offer": "vous n'avez aucune offre en cours",
    "the offer no longer holds: {cause}": "l'offre ne tient plus : {cause}",
}  # fmt: skip

IT: dict[str, str] = {
    # auctions
    "there is no auction": "non c'è nessuna asta",
    "you have left this auction": "hai lasciato quest'asta",
    "you already lead this auction with {amount}": "sei già in testa a quest'asta con {amount}",
    "you cannot take part in this auction": "non puoi partecipare a quest'asta",
    "the lowest bid now is {min}": "l'offerta minima ora è {min}",
    "you can bid at most {max} (your cash)": "puoi offrire al massimo {max} (i tuoi contanti)",
    "you have already left this auction": "hai già lasciato quest'asta",
    "you lead this auction: your bid stands": "sei in testa a quest'asta: la tua offerta resta",
    "another player is placing a building": "un altro giocatore sta piazzando un edificio",
    "you won a hotel": "hai vinto un albergo",
    "you won a house": "hai vinto una casa",
    "you lead this auction: resign once it is over": "sei in testa a quest'asta: ritirati quando è finita",
    "place the building you won first, then resign": "piazza prima l'edificio che hai vinto, poi ritirati",
    # debts
    "you owe nothing": "non devi niente",
    "you owe {amount} but have {cash}: sell buildings, mortgage or trade first":
        "devi {amount} ma hai {cash}: prima vendi edifici, ipoteca o scambia",
    "you owe nothing: bankruptcy is only for debts you cannot pay":
        "non devi niente: la bancarotta è solo per debiti che non puoi pagare",
    "you owe {owed} and could raise {can_raise} by selling and mortgaging: pay instead":
        "devi {owed} e potresti raccogliere {can_raise} vendendo e ipotecando: paga invece",
    # buildings and mortgages
    "there is no square {number}": "non esiste la casella {number}",
    "{square} is not a property": "{square} non è una proprietà",
    "you do not own {square}": "non possiedi {square}",
    "{square} is not a street: railways and utilities carry no buildings":
        "{square} non è una strada: stazioni e società non hanno edifici",
    "you need the whole colour group of {square} to build":
        "per costruire serve tutto il gruppo di colore di {square}",
    "a street of this group is mortgaged: lift it first": "una strada di questo gruppo è ipotecata: prima riscattala",
    "{square} already has a hotel": "{square} ha già un albergo",
    "build evenly: another street of the group has fewer buildings than {square}":
        "costruisci in modo uniforme: un'altra strada del gruppo ha meno edifici di {square}",
    "a building on {square} costs {cost}; you have {cash}": "un edificio su {square} costa {cost}; hai {cash}",
    "the bank has no hotels left": "la banca non ha più alberghi",
    "the bank has no houses left": "la banca non ha più case",
    "the bank is short: its last piece is auctioned from {amount} above the price, {cost} in all on {square}; you "
    "have {cash}":
        "la banca è a corto di edifici: l'ultimo va all'asta da {amount} oltre il prezzo, {cost} in tutto su "
        "{square}; hai {cash}",
    "{square} has no buildings": "{square} non ha edifici",
    "sell evenly: another street of the group has more buildings than {square}":
        "vendi in modo uniforme: un'altra strada del gruppo ha più edifici di {square}",
    "the bank has {houses} houses, {need} are needed to break down the hotel on {square}: sell the group down instead":
        "la banca ha {houses} case, ne servono {need} per smontare l'albergo su {square}: "
        "vendi invece il gruppo in una volta (selldown)",
    "there is no colour group {group}": "non esiste il gruppo di colore {group}",
    "you do not own the whole group": "non possiedi tutto il gruppo",
    "this group has only {n} streets": "questo gruppo ha solo {n} strade",
    "a street holds 0 to {houses} houses or a hotel ({hotel})":
        "una strada ha da 0 a {houses} case o un albergo ({hotel})",
    "selling down cannot add buildings": "vendere non può aggiungere edifici",
    "nothing to sell": "niente da vendere",
    "the group must stay even: levels may differ by one at most":
        "il gruppo deve restare uniforme: i livelli differiscono al massimo di uno",
    "the bank has {houses} houses; this needs {need}": "la banca ha {houses} case; ne servono {need}",
    "{square} is already mortgaged": "{square} è già ipotecata",
    "sell the buildings of the group of {square} first": "prima vendi gli edifici del gruppo di {square}",
    "{square} is not mortgaged": "{square} non è ipotecata",
    "lifting the mortgage on {square} costs {cost}; you have {cash}":
        "riscattare l'ipoteca su {square} costa {cost}; hai {cash}",
    "{square} was not just received mortgaged": "{square} non è appena stata ricevuta ipotecata",
    # chance
    "no chance event is pending: a player must act": "nessun evento casuale in attesa: deve giocare un giocatore",
    "dice are 1 to 6, smaller first": "i dadi vanno da 1 a 6, il minore prima",
    "card {card} is not in the deck now": "la carta {card} ora non è nel mazzo",
    "deed {property} is not with the bank": "il contratto {property} non è della banca",
    "the pending chance event needs dice": "l'evento casuale in attesa richiede i dadi",
    "the pending chance event needs a card": "l'evento casuale in attesa richiede una carta",
    "the pending chance event needs a deed": "l'evento casuale in attesa richiede un contratto",
    # turns
    "a game has {min} to {max} players, not {n}": "una partita ha da {min} a {max} giocatori, non {n}",
    "the game is over": "la partita è finita",
    "there is no seat {seat}": "questo giocatore non esiste",
    "seat {seat} is bankrupt": "{seat} è in bancarotta",
    "waiting for a chance outcome (dice or a card)": "in attesa del caso (dadi o carta)",
    "only a timed game can be ended early": "solo una partita a tempo può finire prima",
    "you owe money: pay it or declare bankruptcy before ending the game":
        "devi dei soldi: pagali o dichiara bancarotta prima di finire la partita",
    "under these rules you build, sell buildings, mortgage and lift mortgages only during your turn":
        "con queste regole si costruisce, si vendono edifici, si ipoteca e si toglie un'ipoteca solo durante il "
        "proprio turno",
    "an auction is running: bid or pass": "è in corso un'asta: offri o passa",
    "seat {seat} must first place the building it won": "{seat} deve prima piazzare l'edificio vinto",
    "seat {seat} must first settle a debt of {amount}": "{seat} deve prima saldare un debito di {amount}",
    "you owe money: raise it (sell, mortgage, trade) and pay, or declare bankruptcy":
        "devi dei soldi: raccoglili (vendi, ipoteca, scambia) e paga, o dichiara bancarotta",
    "seat {seat} must first lift or keep the mortgaged deeds it received":
        "{seat} deve prima riscattare o tenere ipotecati i contratti ricevuti",
    "lift the mortgage (unmortgage) or keep it (keep_mortgaged) on each deed you received":
        "riscatta l'ipoteca (riscatta) o tienila (tieni) su ogni contratto ricevuto",
    "it is seat {seat}'s turn": "è il turno di {seat}",
    "you cannot roll now": "ora non puoi tirare i dadi",
    "jail options come before your roll": "le scelte della prigione vanno fatte prima di tirare",
    "you are not in jail": "non sei in prigione",
    "the fine is {fine}: raise the money first": "la multa è {fine}: prima raccogli i soldi",
    'you have no "get out of jail" card': "non hai una carta «esci di prigione»",
    "there is nothing to buy now": "ora non c'è niente da comprare",
    "it is seat {seat}'s decision": "tocca a {seat} decidere",
    "the price is {price}; you have {cash}: raise money or decline":
        "il prezzo è {price}; hai {cash}: raccogli i soldi o rifiuta",
    "you must roll first": "prima devi tirare i dadi",
    "you have received no mortgaged deed": "non hai ricevuto contratti ipotecati",
    "no rent is due to you on square {number}": "nessun affitto ti è dovuto sulla casella {number}",
    # trades
    "there are only {n} deeds": "ci sono solo {n} contratti",
    "seat {seat} does not own {square}": "{seat} non possiede {square}",
    "the group of {square} has buildings: sell them before trading it":
        "il gruppo di {square} ha edifici: vendili prima di scambiarlo",
    "{square} awaits its lift-or-keep choice": "{square} attende la scelta: riscattare o tenere l'ipoteca",
    "seat {seat} has only {cash} in cash": "{seat} ha solo {cash} in contanti",
    "seat {seat} does not hold that jail card": "{seat} non ha quella carta della prigione",
    "trade with another seat in the game": "scambia con un altro giocatore della partita",
    "that player is bankrupt": "quel giocatore è in bancarotta",
    "an offer must give or ask something": "un'offerta deve dare o chiedere qualcosa",
    "seat {seat} has no open offer to you": "{seat} non ti ha fatto offerte",
    "you have no open offer": "non hai offerte aperte",
    "the offer no longer holds: {cause}": "l'offerta non vale più: {cause}",
}  # fmt: skip

NO: dict[str, str] = {
    # auctions
    "there is no auction": "det er ingen auksjon",
    "you have left this auction": "du har forlatt denne auksjonen",
    "you already lead this auction with {amount}": "du leder allerede denne auksjonen med {amount}",
    "you cannot take part in this auction": "du kan ikke delta i denne auksjonen",
    "the lowest bid now is {min}": "laveste bud nå er {min}",
    "you can bid at most {max} (your cash)": "du kan by høyst {max} (kontantene dine)",
    "you have already left this auction": "du har allerede forlatt denne auksjonen",
    "you lead this auction: your bid stands": "du leder denne auksjonen: budet ditt står",
    "another player is placing a building": "en annen spiller plasserer en bygning",
    "you won a hotel": "du vant et hotell",
    "you won a house": "du vant et hus",
    "you lead this auction: resign once it is over": "du leder denne auksjonen: gi opp når den er over",
    "place the building you won first, then resign": "sett først ut bygningen du vant, og gi så opp",
    # debts
    "you owe nothing": "du skylder ingenting",
    "you owe {amount} but have {cash}: sell buildings, mortgage or trade first":
        "du skylder {amount}, men har {cash}: selg bygninger, pantsett eller bytt først",
    "you owe nothing: bankruptcy is only for debts you cannot pay":
        "du skylder ingenting: konkurs er bare for gjeld du ikke kan betale",
    "you owe {owed} and could raise {can_raise} by selling and mortgaging: pay instead":
        "du skylder {owed} og kan skaffe {can_raise} ved å selge og pantsette: betal i stedet",
    # buildings and mortgages
    "there is no square {number}": "det finnes ingen rute {number}",
    "{square} is not a property": "{square} er ikke en eiendom",
    "you do not own {square}": "du eier ikke {square}",
    "{square} is not a street: railways and utilities carry no buildings":
        "{square} er ikke en gate: stasjoner og verk har ingen bygninger",
    "you need the whole colour group of {square} to build": "du trenger hele fargegruppen til {square} for å bygge",
    "a street of this group is mortgaged: lift it first": "en gate i denne gruppen er pantsatt: innfri den først",
    "{square} already has a hotel": "{square} har allerede et hotell",
    "build evenly: another street of the group has fewer buildings than {square}":
        "bygg jevnt: en annen gate i gruppen har færre bygninger enn {square}",
    "a building on {square} costs {cost}; you have {cash}": "en bygning på {square} koster {cost}; du har {cash}",
    "the bank has no hotels left": "banken har ingen hoteller igjen",
    "the bank has no houses left": "banken har ingen hus igjen",
    "the bank is short: its last piece is auctioned from {amount} above the price, {cost} in all on {square}; you "
    "have {cash}":
        "banken har for få bygninger: den siste auksjoneres fra {amount} over prisen, {cost} i alt på {square}; "
        "du har {cash}",
    "{square} has no buildings": "{square} har ingen bygninger",
    "sell evenly: another street of the group has more buildings than {square}":
        "selg jevnt: en annen gate i gruppen har flere bygninger enn {square}",
    "the bank has {houses} houses, {need} are needed to break down the hotel on {square}: sell the group down instead":
        "banken har {houses} hus, {need} trengs for å bryte ned hotellet på {square}: "
        "selg heller ned hele gruppen (selldown)",
    "there is no colour group {group}": "det finnes ingen fargegruppe {group}",
    "you do not own the whole group": "du eier ikke hele gruppen",
    "this group has only {n} streets": "denne gruppen har bare {n} gater",
    "a street holds 0 to {houses} houses or a hotel ({hotel})":
        "en gate har 0 til {houses} hus eller et hotell ({hotel})",
    "selling down cannot add buildings": "nedsalg kan ikke legge til bygninger",
    "nothing to sell": "ingenting å selge",
    "the group must stay even: levels may differ by one at most":
        "gruppen må være jevn: nivåene kan høyst avvike med én",
    "the bank has {houses} houses; this needs {need}": "banken har {houses} hus; dette trenger {need}",
    "{square} is already mortgaged": "{square} er allerede pantsatt",
    "sell the buildings of the group of {square} first": "selg først bygningene i gruppen til {square}",
    "{square} is not mortgaged": "{square} er ikke pantsatt",
    "lifting the mortgage on {square} costs {cost}; you have {cash}":
        "å innfri pantet på {square} koster {cost}; du har {cash}",
    "{square} was not just received mortgaged": "{square} ble ikke nettopp mottatt pantsatt",
    # chance
    "no chance event is pending: a player must act": "ingen tilfeldighet venter: en spiller må handle",
    "dice are 1 to 6, smaller first": "terningene er 1 til 6, den minste først",
    "card {card} is not in the deck now": "kort {card} er ikke i bunken nå",
    "deed {property} is not with the bank": "skjøte {property} er ikke hos banken",
    "the pending chance event needs dice": "tilfeldigheten som venter trenger terninger",
    "the pending chance event needs a card": "tilfeldigheten som venter trenger et kort",
    "the pending chance event needs a deed": "tilfeldigheten som venter trenger et skjøte",
    # turns
    "a game has {min} to {max} players, not {n}": "et spill har {min} til {max} spillere, ikke {n}",
    "the game is over": "spillet er over",
    "there is no seat {seat}": "den spilleren finnes ikke",
    "seat {seat} is bankrupt": "{seat} er konkurs",
    "waiting for a chance outcome (dice or a card)": "venter på tilfeldigheter (terninger eller kort)",
    "only a timed game can be ended early": "bare et spill på tid kan avsluttes tidlig",
    "you owe money: pay it or declare bankruptcy before ending the game":
        "du skylder penger: betal eller erklær konkurs før du avslutter spillet",
    "under these rules you build, sell buildings, mortgage and lift mortgages only during your turn":
        "med disse reglene bygger, selger, pantsetter og innløser du bare på din egen tur",
    "an auction is running: bid or pass": "en auksjon pågår: by eller stå over",
    "seat {seat} must first place the building it won": "{seat} må først plassere bygningen som ble vunnet",
    "seat {seat} must first settle a debt of {amount}": "{seat} må først gjøre opp en gjeld på {amount}",
    "you owe money: raise it (sell, mortgage, trade) and pay, or declare bankruptcy":
        "du skylder penger: skaff dem (selg, pantsett, bytt) og betal, eller erklær konkurs",
    "seat {seat} must first lift or keep the mortgaged deeds it received":
        "{seat} må først innfri eller beholde pantet på skjøtene som ble mottatt",
    "lift the mortgage (unmortgage) or keep it (keep_mortgaged) on each deed you received":
        "innfri pantet (innfri) eller behold det (behold) på hvert skjøte du mottok",
    "it is seat {seat}'s turn": "det er {seat} sin tur",
    "you cannot roll now": "du kan ikke kaste nå",
    "jail options come before your roll": "fengselsvalgene kommer før kastet ditt",
    "you are not in jail": "du er ikke i fengsel",
    "the fine is {fine}: raise the money first": "boten er {fine}: skaff pengene først",
    'you have no "get out of jail" card': "du har ikke noe «løslatt fra fengsel»-kort",
    "there is nothing to buy now": "det er ingenting å kjøpe nå",
    "it is seat {seat}'s decision": "det er {seat} som bestemmer",
    "the price is {price}; you have {cash}: raise money or decline":
        "prisen er {price}; du har {cash}: skaff penger eller avslå",
    "you must roll first": "du må kaste først",
    "you have received no mortgaged deed": "du har ikke mottatt noe pantsatt skjøte",
    "no rent is due to you on square {number}": "du har ikke leie til gode på rute {number}",
    # trades
    "there are only {n} deeds": "det finnes bare {n} skjøter",
    "seat {seat} does not own {square}": "{seat} eier ikke {square}",
    "the group of {square} has buildings: sell them before trading it":
        "gruppen til {square} har bygninger: selg dem før du bytter den",
    "{square} awaits its lift-or-keep choice": "{square} venter på valget innfri eller behold",
    "seat {seat} has only {cash} in cash": "{seat} har bare {cash} i kontanter",
    "seat {seat} does not hold that jail card": "{seat} har ikke det fengselskortet",
    "trade with another seat in the game": "bytt med en annen spiller i spillet",
    "that player is bankrupt": "den spilleren er konkurs",
    "an offer must give or ask something": "et tilbud må gi eller be om noe",
    "seat {seat} has no open offer to you": "{seat} har ikke noe åpent tilbud til deg",
    "you have no open offer": "du har ikke noe åpent tilbud",
    "the offer no longer holds: {cause}": "tilbudet gjelder ikke lenger: {cause}",
}  # fmt: skip

REFUSALS: dict[str, dict[str, str]] = {"en": EN, "fr": FR, "it": IT, "no": NO}


def explain(error: IllegalAction, game: Game, lang: str = "en") -> str:
    """The refusal in ``lang``, players named and amounts in the board's currency; the engine's
    English reason when the refusal has no template (it was not made by a move)."""
    template = REFUSALS.get(lang, EN).get(error.code or "")
    if template is None:
        return str(error)
    fields: dict[str, str] = {}
    for name, value in error.fields.items():
        if name in SEAT_FIELDS and value.isdigit() and int(value) < game.num_players:
            fields[name] = game.names[int(value)]
        elif name in MONEY_FIELDS and value.isdigit():
            fields[name] = money(lang, game.currency, int(value))
        elif name == "cause" and isinstance(error.__cause__, IllegalAction):
            fields[name] = explain(error.__cause__, game, lang)
        else:
            fields[name] = value
    return template.format(**fields)
