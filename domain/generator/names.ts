/**
 * Name makers for generated horses, sires, jockeys, trainers and race titles. Names are invented from
 * word lists (no real horse or person is named on purpose); collisions are resolved by the callers.
 */
import type { Rng } from './prng.js';

const words = (s: string): readonly string[] => s.trim().split(/\s+/);

const ADJ = words(`
  Golden Silver Royal Silent Secret Midnight Crimson Scarlet Bold Brave Lucky Wild Northern Southern
  Eastern Western Highland Hidden Distant Gentle Noble Rapid Swift Quiet Ancient Little Grand Proud
  Misty Stormy Sunny Velvet Copper Amber Azure Emerald Ivory Jade Ruby Sapphire Shadow Frosty Lunar
  Solar Cosmic Urban Rustic Merry Jolly Dancing Flying Roaring Rolling Rising Running Shining Soaring
  Whispering Wandering Winning Dashing Daring Dreaming Burning Falling Glowing Laughing Racing Rocking
  Singing Spinning Smart Sharp Clever Wise Free Final First Last Lost Lone Lonely Magic Mystic Perfect
  Pure Rare Red Blue Green Black White Grey Pink Purple Dark Bright Early Late Happy Great High Deep
  Fast Easy Cool Hot Iron Stone Steel Star Sky Sea Storm Thunder Winter Summer Autumn Spring Morning
  Evening Western Celtic Gallic Saxon Tudor Regal Imperial Brilliant Electric Atomic Fearless Loyal
  Mighty Sweet Sacred Savage Supreme Tender Valiant Vivid Wicked Witty Zesty Ocean River Mountain Forest
  Desert Island Harbour Castle Captain Major Colonel General Doctor Lady Lord Sir Mister Miss Queen King
`);

const NOUN = words(`
  Arrow Harbour Meadow River Valley Legend Spirit Dream Dancer Runner Rider Warrior Knight Prince
  Princess Duke Baron Count Emperor Empress Falcon Eagle Hawk Raven Robin Sparrow Swallow Phoenix Dragon
  Tiger Lion Wolf Fox Bear Stag Hare Otter Badger Comet Meteor Planet Galaxy Horizon Sunrise Sunset
  Twilight Moonlight Starlight Rainbow Breeze Tempest Cyclone Blizzard Cascade Fountain Glacier Canyon
  Summit Ridge Highway Voyage Journey Quest Venture Odyssey Fortune Treasure Jewel Diamond Pearl Crystal
  Crown Sceptre Banner Flag Anthem Ballad Sonnet Melody Rhythm Tango Waltz Samba Rumba Jig Reel Gambit
  Rebel Rogue Bandit Outlaw Pirate Rascal Scholar Poet Artist Pilot Sailor Soldier Ranger Hunter Archer
  Guardian Sentinel Champion Hero Victor Maverick Pioneer Nomad Drifter Wanderer Dreamer Seeker
  Promise Secret Whisper Echo Mirage Illusion Wonder Miracle Destiny Glory Honour Valour Courage Liberty
  Justice Harmony Serenity Paradise Eden Avalon Atlantis Camelot Olympus Bay Cove Creek Brook Glen Moor
  Heath Fell Tor Crag Peak Spire Tower Bridge Gate Lane Road Street Square Market Abbey Chapel Manor
  Lodge Cottage Hall Court Palace Castle Fort Citadel Bastion Beacon Lantern Candle Flame Spark Blaze
  Ember Thunder Lightning Storm Rain Snow Frost Mist Cloud Wind Gale Tide Wave Current Stream Ocean Sea
  Shore Coast Cliff Rock Stone Boulder Pebble Sand Dune Oasis Mirage Orchard Garden Rose Lily Violet
  Iris Daisy Tulip Orchid Poppy Heather Ivy Holly Willow Oak Ash Elm Maple Cedar Pine Birch Hazel Rowan
  Thistle Clover Shamrock Bramble Fern Moss Sage Saffron Cinnamon Pepper Ginger Nutmeg Honey Sugar Toffee
  Fudge Brandy Whisky Sherry Claret Champagne Cider Porter Stout Rhapsody Symphony Overture Encore
  Jackpot Bonanza Windfall Payday Dividend Bounty Ransom Tribute Legacy Heritage Dynasty Empire Kingdom
`);

const SOLO = words(`
  Kalamata Zanzibar Mandalay Samarkand Timbuktu Valparaiso Casablanca Marrakech Andalucia Catalonia
  Bohemia Carpathia Patagonia Tasmania Caledonia Hibernia Cambria Arcadia Elysium Xanadu Shangri
  Tarragon Aurelius Maximus Augustus Octavian Hadrian Trajan Caligula Nero Cicero Horatio Ignatius
  Lysander Perseus Achilles Odysseus Hector Ajax Jason Orion Sirius Vega Altair Rigel Polaris Antares
  Andromeda Cassiopeia Pegasus Calypso Medea Ariadne Persephone Athena Artemis Apollo Hermes Zeus Hera
  Mercury Venus Saturn Jupiter Neptune Pluto Titan Oberon Titania Puck Ariel Prospero Miranda Rosalind
  Beatrice Benedick Falstaff Horatio Banquo Macduff Othello Iago Portia Shylock Bassanio Antonio
`);

const FIRST = words(`
  James John Robert Michael William David Richard Joseph Thomas Charles Christopher Daniel Matthew
  Anthony Mark Paul Steven Andrew Kenneth Joshua Kevin Brian George Timothy Ronald Edward Jason Jeffrey
  Ryan Jacob Gary Nicholas Eric Jonathan Stephen Larry Justin Scott Brandon Benjamin Samuel Gregory
  Alexander Frank Patrick Raymond Jack Dennis Jerry Tyler Aaron Jose Adam Nathan Henry Douglas Zachary
  Peter Kyle Noah Ethan Jeremy Walter Christian Keith Roger Terry Austin Sean Gerald Carl Harold Dylan
  Arthur Lawrence Jordan Jesse Bryan Billy Bruce Gabriel Joe Logan Alan Juan Albert Willie Elijah Wayne
  Randy Vincent Mary Patricia Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Lisa Nancy
  Sandra Ashley Emily Donna Michelle Carol Amanda Melissa Deborah Stephanie Rebecca Sharon Laura Cynthia
  Amy Kathleen Angela Shirley Brenda Emma Anna Pamela Nicole Samantha Katherine Christine Helen Debra
  Rachel Carolyn Janet Maria Catherine Heather Diane Olivia Julie Joyce Victoria Ruth Virginia Lauren
  Kelly Christina Joan Evelyn Judith Andrea Hannah Megan Cheryl Jacqueline Martha Madison Teresa Gloria
  Sara Janice Ann Kathryn Abigail Sophia Frances Jean Alice Judy Isabella Julia Grace Amber Denise Danielle
  Marilyn Beverly Charlotte Natalie Theresa Diana Brittany Doris Kayla Alexis Lori Oisin Cian Conor
  Darragh Eoin Padraig Seamus Ciaran Niamh Aoife Siobhan Declan Fergus Rory Callum Hamish Angus Ewan
  Gethin Rhys Dafydd Hollie Harry Tom Ben Sam Will Rob Dan Jim Jamie Luke Oliver Finley Archie Rossa
`);

const LAST = words(`
  Smith Jones Taylor Brown Williams Wilson Johnson Davies Robinson Wright Thompson Evans Walker White
  Roberts Green Hall Wood Jackson Clarke Patel Khan Lewis James Phillips Mason Mitchell Rose Davis
  Rodriguez Cox Alexander Garden Campbell Johnston Moore Smyth Oneill Doherty Stewart Quinn Murphy
  Graham Mclaughlin Hamilton Murray Hughes Robertson Thomson Scott Macdonald Reid Clark Ross Young
  Watson Paterson Morrison Kelly Ryan Sullivan Walsh Byrne Ohara Brennan Burke Collins Connolly
  Doyle Dunne Fitzgerald Gallagher Kavanagh Kennedy Lynch Mccarthy Mcgrath Mahony Moran Nolan Oconnor
  Obrien Power Quigley Regan Sheehan Sweeney Tobin Whelan Fahey Osborne Haggas Gosden Stoute Hannon
  Appleby Varian Crisford Channon Fanshawe Balding Beckett Charlton Dascombe Easterby Ellison Haslam
  Herries Jarvis Kirby Lane Makin Meehan Nicholls Palmer Perrett Portman Ralph Rowley Saunders Simcock
  Stokell Tate Tuite Vaughan Walford Wigham Wintle Woodhouse Yardley Ashton Barker Bennett Blackwell
  Bowen Bradley Burrows Butler Chapman Coleman Cooper Crawford Dawson Dixon Drake Dunn Ellis Fisher
  Fleming Ford Foster Fox Gibson Gordon Grant Gray Griffiths Hardy Harper Harris Harvey Hayes Henderson
  Holmes Hunt Hunter Irwin Jenkins Kay Kemp Knight Lawson Lee Lloyd Long Marshall Matthews Mills Morgan
  Morris Newman Owen Parker Payne Pearson Perry Porter Price Reynolds Richards Riley Russell Shaw Simpson
  Spencer Stevens Stone Turner Wallace Ward Warren Watts Webb Wells West Wheeler Wood Woods Wyatt Yates
  Dubois Martin Bernard Moreau Laurent Lefevre Girard Bonnet Dupont Lambert Fontaine Rousseau Vincent
  Garcia Martinez Lopez Gonzalez Hernandez Perez Sanchez Ramirez Torres Flores Rivera Gomez Diaz Cruz
  Tanaka Suzuki Takahashi Watanabe Ito Yamamoto Nakamura Kobayashi Kato Yoshida Chan Wong Leung Cheung
  Lau Ho Ng Lam Tsang Kwok Anderson Mcdonald Nguyen Hill Baker Carter Adams Nelson Hill Bell Murphy
`);

/** Kinds of local business that sponsor races (combined with a place name). */
const BUSINESS = words(`
  Ales Brewery Motors Homes Insurance Logistics Builders Vets Solicitors Farms Foods Dairy Garages
  Kitchens Windows Roofing Carpets Estates Lettings Finance Recruitment Printing Travel Hotels Bakery
  Plant Haulage Engineering Accountants Caravans Nurseries Feeds Saddlery Transport Construction
`);

/** Fictional sponsors and race-day titles. */
const SPONSORS = [
  'RaceBet',
  'StarBet',
  'BetNorth',
  'Tote Placepot',
  'Racing Welfare',
  'British Stallion Studs EBF',
  'Injured Jockeys Fund',
  'Ladies Day',
  'Family Fun Day',
  'Racing Staff Week',
  'Jockey Club Rewards',
  'Go Racing',
  'Download The App',
  'Every Race Live',
];

const PLACES = words(`
  Abbey Barnfield Bramley Castleton Cherrywood Dalesway Eastgate Fernhill Glenview Hartwell Highfield
  Kingsmead Lakeside Longmeadow Millbrook Northwood Oakfield Parkview Queensway Riverside Sandford
  Southfields Thornbury Upton Westbrook Whitecross Willowbank Woodlands Ashgrove Beechwood Clearwater
`);

const SUFFIX_BY_BRED = ['', ' (IRE)', ' (FR)', ' (USA)', ' (GER)', ' (AUS)', ' (JPN)'] as const;

/** A horse name (at most 18 characters before any country suffix, as the BHA requires). */
export function horseName(rng: Rng): string {
  for (;;) {
    const r = rng.next();
    let name: string;
    if (r < 0.45) name = `${rng.pick(ADJ)} ${rng.pick(NOUN)}`;
    else if (r < 0.7) name = `${rng.pick(NOUN)} ${rng.pick(NOUN)}`;
    else if (r < 0.82) name = rng.pick(SOLO);
    else if (r < 0.9) name = `${rng.pick(NOUN)}${rng.pick(NOUN).toLowerCase()}`;
    else name = `${rng.pick(ADJ)} ${rng.pick(ADJ)} ${rng.pick(NOUN)}`;
    if (name.length <= 18) return name;
  }
}

/** Country-of-breeding suffix index for a horse trained in `country`. */
export function bredSuffix(rng: Rng, country: string): string {
  const r = rng.next();
  switch (country) {
    case 'GB':
      return r < 0.55
        ? ''
        : r < 0.86
          ? SUFFIX_BY_BRED[1]
          : r < 0.94
            ? SUFFIX_BY_BRED[2]
            : r < 0.98
              ? SUFFIX_BY_BRED[3]
              : SUFFIX_BY_BRED[4];
    case 'IRE':
      return r < 0.85 ? SUFFIX_BY_BRED[1] : r < 0.95 ? ' (GB)' : SUFFIX_BY_BRED[2];
    case 'FR':
      return r < 0.85 ? SUFFIX_BY_BRED[2] : r < 0.95 ? SUFFIX_BY_BRED[1] : ' (GB)';
    case 'USA':
      return SUFFIX_BY_BRED[3];
    case 'AUS':
      return r < 0.8 ? SUFFIX_BY_BRED[5] : ' (NZ)';
    case 'JPN':
      return SUFFIX_BY_BRED[6];
    default:
      return r < 0.4 ? SUFFIX_BY_BRED[1] : r < 0.7 ? ' (GB)' : r < 0.85 ? SUFFIX_BY_BRED[5] : SUFFIX_BY_BRED[3];
  }
}

/** A person's name (jockey or trainer). */
export function personName(rng: Rng): string {
  const last = rng.pick(LAST);
  const first = rng.pick(FIRST);
  if (rng.chance(0.06)) return `${first} ${rng.pick(LAST)}-${last}`;
  return `${first} ${last}`;
}

/** A sire name: like a horse name, always a single stallion. */
export function sireName(rng: Rng): string {
  return rng.chance(0.35) ? rng.pick(SOLO) + ' ' + rng.pick(NOUN) : horseName(rng);
}

/** A sponsor-style race title prefix, e.g. "Castleton Homes". */
export function racePrefix(rng: Rng, courseName: string): string {
  const r = rng.next();
  if (r < 0.45) return `${rng.pick(PLACES)} ${rng.pick(BUSINESS)}`;
  if (r < 0.65) return `${personName(rng)} Memorial`;
  if (r < 0.85) return rng.pick(SPONSORS);
  if (r < 0.93) return `${courseName.replace(/ \(.*\)$/, '')} ${rng.pick(BUSINESS)}`;
  return `${rng.pick(ADJ)} ${rng.pick(NOUN)}`;
}

const TITLES = ['Mr', 'Mr', 'Mr', 'Mrs', 'Mrs', 'Ms', 'Miss', 'Dr', 'Sir', 'Lady'] as const;
const initial = (rng: Rng): string => String.fromCharCode(65 + Math.floor(rng.next() * 26));

/**
 * An owner's name, in the shapes the results files show: a person (`Mr J P Smith`, `Mrs Anne Walsh`),
 * couples and joint owners, partnerships and syndicates, racing clubs, studs and companies.
 */
export function ownerName(rng: Rng): string {
  const r = rng.next();
  if (r < 0.3) {
    const inits = rng.chance(0.4) ? `${initial(rng)} ${initial(rng)}` : initial(rng);
    return `${rng.pick(TITLES)} ${inits} ${rng.pick(LAST)}`;
  }
  if (r < 0.45) return personName(rng);
  if (r < 0.55)
    return `${personName(rng)} & ${rng.chance(0.5) ? personName(rng) : `${initial(rng)} ${rng.pick(LAST)}`}`;
  if (r < 0.7) {
    const base = rng.chance(0.5) ? rng.pick(LAST) : `${rng.pick(ADJ)} ${rng.pick(NOUN)}`;
    return `The ${base} ${rng.chance(0.6) ? 'Partnership' : 'Syndicate'}`;
  }
  if (r < 0.8) return `${rng.pick(PLACES)} ${rng.chance(0.5) ? 'Racing' : 'Racing Club'}`;
  if (r < 0.9) return `${rng.pick(PLACES)} ${rng.chance(0.6) ? 'Stud' : 'Bloodstock'}`;
  return `${rng.pick(SOLO)} ${rng.chance(0.5) ? 'Racing Limited' : 'Thoroughbreds'}`;
}
