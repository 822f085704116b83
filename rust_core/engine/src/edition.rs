//! Editions: the names of the squares, the currency and the two card decks of each board.
//!
//! Everything that varies between editions is a data table here; the rules never look at names.

use crate::cards::{Card, Effect, Effect::*, DECK_SIZE};
use serde::{Deserialize, Serialize};

/// Which edition's board a game is played on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum BoardId {
    /// The US (Atlantic City) names.
    Classic,
    /// The French (Paris) names, from the rules page in seed 004.
    Paris,
}

impl BoardId {
    pub const ALL: [BoardId; 2] = [BoardId::Classic, BoardId::Paris];

    pub fn name(self) -> &'static str {
        match self {
            BoardId::Classic => "classic",
            BoardId::Paris => "paris",
        }
    }

    pub fn from_name(name: &str) -> Option<BoardId> {
        Self::ALL.into_iter().find(|b| b.name() == name)
    }

    pub fn edition(self) -> &'static Edition {
        match self {
            BoardId::Classic => &CLASSIC,
            BoardId::Paris => &PARIS,
        }
    }
}

/// The printed material of one edition.
pub struct Edition {
    pub currency: &'static str,
    pub squares: [&'static str; 40],
    pub tokens: [&'static str; 8],
    pub chance: [Card; DECK_SIZE],
    pub community_chest: [Card; DECK_SIZE],
}

const fn card(text: &'static str, effect: Effect) -> Card {
    Card { text, effect }
}

pub static CLASSIC: Edition = Edition {
    currency: "$",
    squares: [
        "GO",
        "Mediterranean Avenue",
        "Community Chest",
        "Baltic Avenue",
        "Income Tax",
        "Reading Railroad",
        "Oriental Avenue",
        "Chance",
        "Vermont Avenue",
        "Connecticut Avenue",
        "Jail",
        "St. Charles Place",
        "Electric Company",
        "States Avenue",
        "Virginia Avenue",
        "Pennsylvania Railroad",
        "St. James Place",
        "Community Chest",
        "Tennessee Avenue",
        "New York Avenue",
        "Free Parking",
        "Kentucky Avenue",
        "Chance",
        "Indiana Avenue",
        "Illinois Avenue",
        "B. & O. Railroad",
        "Atlantic Avenue",
        "Ventnor Avenue",
        "Water Works",
        "Marvin Gardens",
        "Go To Jail",
        "Pacific Avenue",
        "North Carolina Avenue",
        "Community Chest",
        "Pennsylvania Avenue",
        "Short Line",
        "Chance",
        "Park Place",
        "Luxury Tax",
        "Boardwalk",
    ],
    tokens: ["dog", "top hat", "car", "battleship", "cat", "T-rex", "duck", "penguin"],
    chance: [
        card("Advance to GO. Collect $200.", AdvanceTo(0)),
        card("Advance to Illinois Avenue. If you pass GO, collect $200.", AdvanceTo(24)),
        card("Advance to St. Charles Place. If you pass GO, collect $200.", AdvanceTo(11)),
        card("Advance to the nearest Railroad. If unowned, you may buy it; if owned, pay the owner twice the rent.", NearestRailway),
        card("Advance to the nearest Railroad. If unowned, you may buy it; if owned, pay the owner twice the rent.", NearestRailway),
        card("Advance to the nearest Utility. If unowned, you may buy it; if owned, roll the dice and pay the owner ten times the roll.", NearestUtility),
        card("Bank pays you a dividend of $50.", Collect(50)),
        card("Get Out of Jail Free. This card may be kept until needed or traded.", GetOutOfJail),
        card("Go back 3 spaces.", GoBack(3)),
        card("Go to Jail. Do not pass GO, do not collect $200.", GoToJail),
        card("Make general repairs on all your property: $25 per house, $100 per hotel.", Repairs { house: 25, hotel: 100 }),
        card("Speeding fine: $15.", Pay(15)),
        card("Take a trip to Reading Railroad. If you pass GO, collect $200.", AdvanceTo(5)),
        card("You have been elected Chairman of the Board. Pay each player $50.", PayEachPlayer(50)),
        card("Your building loan matures. Collect $150.", Collect(150)),
        card("Advance to Boardwalk.", AdvanceTo(39)),
    ],
    community_chest: [
        card("Advance to GO. Collect $200.", AdvanceTo(0)),
        card("Bank error in your favour. Collect $200.", Collect(200)),
        card("Doctor's fee. Pay $50.", Pay(50)),
        card("From sale of stock you get $50.", Collect(50)),
        card("Get Out of Jail Free. This card may be kept until needed or traded.", GetOutOfJail),
        card("Go to Jail. Do not pass GO, do not collect $200.", GoToJail),
        card("Income tax refund. Collect $20.", Collect(20)),
        card("It is your birthday. Collect $10 from every player.", CollectFromEachPlayer(10)),
        card("You inherit $100.", Collect(100)),
        card("Holiday fund matures. Receive $100.", Collect(100)),
        card("Hospital fees. Pay $100.", Pay(100)),
        card("School fees. Pay $50.", Pay(50)),
        card("Receive $25 consultancy fee.", Collect(25)),
        card("You are assessed for street repairs: $40 per house, $115 per hotel.", Repairs { house: 40, hotel: 115 }),
        card("You have won second prize in a beauty contest. Collect $10.", Collect(10)),
        card("Life insurance matures. Collect $100.", Collect(100)),
    ],
};

pub static PARIS: Edition = Edition {
    currency: "€",
    squares: [
        "Départ",
        "Boulevard de Belleville",
        "Caisse de communauté",
        "Rue Lecourbe",
        "Impôts sur le revenu",
        "Gare Montparnasse",
        "Rue de Vaugirard",
        "Chance",
        "Rue de Courcelles",
        "Avenue de la République",
        "Prison / Simple visite",
        "Boulevard de la Villette",
        "Compagnie d’électricité",
        "Avenue de Neuilly",
        "Rue de Paradis",
        "Gare de Lyon",
        "Avenue Mozart",
        "Caisse de communauté",
        "Boulevard Saint-Michel",
        "Place Pigalle",
        "Parc gratuit",
        "Avenue Matignon",
        "Chance",
        "Boulevard Malesherbes",
        "Avenue Henri-Martin",
        "Gare du Nord",
        "Faubourg Saint-Honoré",
        "Place de la Bourse",
        "Compagnie des eaux",
        "Rue La Fayette",
        "Allez en prison",
        "Avenue de Breteuil",
        "Avenue Foch",
        "Caisse de communauté",
        "Boulevard des Capucines",
        "Gare Saint-Lazare",
        "Chance",
        "Avenue des Champs-Élysées",
        "Taxe de luxe",
        "Rue de la Paix",
    ],
    tokens: ["chien", "chapeau haut-de-forme", "voiture", "cuirassé", "chat", "tyrannosaure", "canard", "pingouin"],
    chance: [
        card("Avancez jusqu’à la case Départ. Recevez 200 €.", AdvanceTo(0)),
        card("Rendez-vous à l’Avenue Henri-Martin. Si vous passez par la case Départ, recevez 200 €.", AdvanceTo(24)),
        card("Rendez-vous au Boulevard de la Villette. Si vous passez par la case Départ, recevez 200 €.", AdvanceTo(11)),
        card("Avancez jusqu’à la gare la plus proche. Si elle est libre, vous pouvez l’acheter ; sinon payez le double du loyer.", NearestRailway),
        card("Avancez jusqu’à la gare la plus proche. Si elle est libre, vous pouvez l’acheter ; sinon payez le double du loyer.", NearestRailway),
        card("Avancez jusqu’à la compagnie la plus proche. Si elle est libre, vous pouvez l’acheter ; sinon payez dix fois le montant des dés.", NearestUtility),
        card("La banque vous verse un dividende de 50 €.", Collect(50)),
        card("Vous êtes libéré de prison. Cette carte peut être conservée jusqu’à utilisation.", GetOutOfJail),
        card("Reculez de trois cases.", GoBack(3)),
        card("Allez en prison. Ne passez pas par la case Départ, ne recevez pas 200 €.", GoToJail),
        card("Faites des réparations dans toutes vos maisons : 25 € par maison, 100 € par hôtel.", Repairs { house: 25, hotel: 100 }),
        card("Amende pour excès de vitesse : 15 €.", Pay(15)),
        card("Rendez-vous à la Gare de Lyon. Si vous passez par la case Départ, recevez 200 €.", AdvanceTo(15)),
        card("Vous avez été élu président du conseil d’administration : payez 50 € à chaque joueur.", PayEachPlayer(50)),
        card("Votre immeuble et votre prêt rapportent : recevez 150 €.", Collect(150)),
        card("Avancez jusqu’à la Rue de la Paix.", AdvanceTo(39)),
    ],
    community_chest: [
        card("Avancez jusqu’à la case Départ. Recevez 200 €.", AdvanceTo(0)),
        card("Erreur de la banque en votre faveur : recevez 200 €.", Collect(200)),
        card("Frais de médecin : payez 50 €.", Pay(50)),
        card("Vente d’actions : recevez 50 €.", Collect(50)),
        card("Vous êtes libéré de prison. Cette carte peut être conservée jusqu’à utilisation.", GetOutOfJail),
        card("Allez en prison. Ne passez pas par la case Départ, ne recevez pas 200 €.", GoToJail),
        card("Les contributions vous remboursent 20 €.", Collect(20)),
        card("C’est votre anniversaire : chaque joueur vous donne 10 €.", CollectFromEachPlayer(10)),
        card("Vous héritez de 100 €.", Collect(100)),
        card("Vous recevez votre revenu annuel : 100 €.", Collect(100)),
        card("Payez la note de l’hôpital : 100 €.", Pay(100)),
        card("Payez les frais de scolarité : 50 €.", Pay(50)),
        card("Recevez 25 € pour vos services de consultant.", Collect(25)),
        card("Vous êtes imposé pour les réparations de voirie : 40 € par maison, 115 € par hôtel.", Repairs { house: 40, hotel: 115 }),
        card("Vous avez gagné le deuxième prix d’un concours de beauté : recevez 10 €.", Collect(10)),
        card("Votre assurance-vie arrive à échéance : recevez 100 €.", Collect(100)),
    ],
};

impl Edition {
    pub fn deck(&self, deck: crate::board::Deck) -> &[Card; DECK_SIZE] {
        match deck {
            crate::board::Deck::Chance => &self.chance,
            crate::board::Deck::CommunityChest => &self.community_chest,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{Deck, DEEDS};

    #[test]
    fn both_decks_of_every_edition_have_one_jail_card() {
        for b in BoardId::ALL {
            for deck in [Deck::Chance, Deck::CommunityChest] {
                let n = b.edition().deck(deck).iter().filter(|c| c.effect == GetOutOfJail).count();
                assert_eq!(n, 1, "{b:?} {deck:?}");
            }
        }
    }

    #[test]
    fn paris_chance_targets_are_the_named_squares() {
        let targets: Vec<&str> = PARIS
            .chance
            .iter()
            .filter_map(|c| match c.effect {
                AdvanceTo(s) if s != 0 => Some(PARIS.squares[s as usize]),
                _ => None,
            })
            .collect();
        assert_eq!(targets, ["Avenue Henri-Martin", "Boulevard de la Villette", "Gare de Lyon", "Rue de la Paix"]);
        assert_eq!(PARIS.squares[DEEDS[27].square as usize], "Rue de la Paix");
    }
}
