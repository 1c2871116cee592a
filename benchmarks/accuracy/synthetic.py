"""A seeded generator of person and business records in several languages and scripts, with
labelled duplicates made the ways real ones are.

Why generated: the public datasets are English or Australian-English and ASCII. Users' data is
not. Each entity (a person or a business) gets a canonical record in one of eight locales (US
English, German, French, Spanish, Russian in Cyrillic, Greek, Chinese and Japanese, the last
two with addresses written without spaces); a cluster holds 1 to 5 records of the entity, each
but the first changed by one to three of:

- a typo (a letter substituted, dropped, doubled or two letters swapped, within the script);
- an abbreviation (``Straße``/``Str.``, ``Street``/``St``, ``улица``/``ул.``, ``GmbH`` forms,
  a given name cut to its initial);
- swapped fields (given name and surname, or the city before the street);
- a missing field (phone, postcode, date of birth, city);
- accents folded (``Café Müller``/``Cafe Muller``), German transliteration
  (``Straße``/``Strasse``, ``Müller``/``Mueller``), Greek capitals (which drop the tonos);
- upper case; full-width Latin letters and digits (``Ｓｔａｒｂｕｃｋｓ``); spaces added to or
  removed from CJK addresses; another phone format.

Hard negatives are made too: relatives (same surname, address and phone, another given name and
birth date) and businesses in the same building. Only :mod:`random` with a fixed seed is used,
so the records depend on the seed and the Python version's ``random`` alone.
"""

from __future__ import annotations

import random
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field

#: Probability of a cluster of 1, 2, 3, 4, 5 records.
CLUSTER_SIZES = (0.45, 0.25, 0.15, 0.10, 0.05)
#: Locale mix.
LOCALES = {
    "en": 0.28, "de": 0.15, "fr": 0.12, "es": 0.08, "ru": 0.1, "el": 0.08, "zh": 0.1, "ja": 0.09,
}  # fmt: skip
FIELDS = ("name", "address", "postcode", "city", "phone", "dob")

_GIVEN = {
    "en": "James Mary Robert Patricia John Jennifer Michael Linda William Elizabeth David Barbara "
    "Richard Susan Joseph Jessica Thomas Sarah Charles Karen Christopher Nancy Daniel Lisa "
    "Matthew Betty Anthony Margaret Mark Sandra",
    "de": "Jürgen Björn Günter Jörg Uwe Klaus Sören Hans Käthe Jürgen Lötte Ursula Brigitte "
    "Gisela Renate Monika Helmut Wolfgang Dieter Gerhard Bärbel Ingrid Heinz Karl-Heinz "
    "Jens Maximilian Sophie Lukas Hannah Felix",
    "fr": "François Hélène Jérôme Amélie Céline Frédéric Stéphane Benoît Anaïs Noël Zoé "
    "Élodie Gaëlle Raphaël Loïc Mathéo Léa Chloé Inès Théo Clément Cécile Jean-Pierre "
    "Marie-Thérèse Pierre Camille Julien Margaux Aurélien Renée",
    "es": "José María Jesús Ángel Martín Lucía Sofía Andrés Inés Raúl Íñigo Begoña Nuria "
    "Álvaro Rocío Tomás Verónica Joaquín Mónica Ramón Pilar Sebastián Adrián Julián Elena",
    "ru": "Иван Ольга Сергей Наталья Алексей Елена Дмитрий Татьяна Андрей Мария Николай "
    "Анна Михаил Ирина Владимир Светлана Юрий Екатерина Павел Людмила",
    "el": "Γιώργος Μαρία Δημήτρης Ελένη Νίκος Κατερίνα Κώστας Βασιλική Γιάννης Σοφία "
    "Παναγιώτης Αναστασία Χρήστος Δέσποινα Αθανάσιος Ευαγγελία Σπύρος Χριστίνα",
    "zh": "伟 芳 娜 敏 静 丽 强 磊 军 洋 勇 艳 杰 娟 涛 明 超 秀英 霞 平 刚 桂英 建华 志强",
    "ja": "太郎 花子 一郎 美咲 翔太 陽菜 大輔 さくら 健太 結衣 拓海 葵 蓮 美優 悠斗 愛 直樹 真由美",
}
_SURNAME = {
    "en": "Smith Johnson Williams Brown Jones Garcia Miller Davis Rodriguez Martinez Hernandez "
    "Lopez Wilson Anderson Thomas Taylor Moore Jackson Martin Lee Thompson White Harris "
    "Clark Lewis Robinson Walker Young Allen King O'Brien McDonald",
    "de": "Müller Schröder Weiß Groß Schäfer Köhler Jäger Krüger Möller Hoffmann Schmitz "
    "Bräuer Fuß Strauß Günther Löwe Böhm Wagner Becker Schulz Zimmermann Braun Krämer "
    "Schütz Wölfl Kühn Hübner Vogel Lorenz Weißmann",
    "fr": "Lefèvre Girard Bélanger Côté Fournier Gauthier Lévesque Dupré Ménard Thébault "
    "Leclère Bénard Rousseau Chevalier Hébert Géraud Pâris Garnier Mercier Dubois Lemaître "
    "Faure Barthélemy Noël Aubé",
    "es": "García Fernández González Rodríguez López Martínez Sánchez Pérez Gómez Martín "
    "Jiménez Ruiz Hernández Díaz Muñoz Álvarez Peña Ibáñez Núñez Cañizares Ordóñez",
    "ru": "Иванов Смирнов Кузнецов Попов Васильев Петров Соколов Михайлов Новиков Фёдоров "
    "Морозов Волков Алексеев Лебедев Семёнов Егоров Павлов Козлов Степанов Николаев",
    "el": "Παπαδόπουλος Παπαδάκης Γεωργίου Οικονόμου Νικολάου Ιωάννου Βασιλείου Κωνσταντίνου "
    "Δημητρίου Αθανασίου Πετρόπουλος Καραγιάννης Μαυρίδης Αντωνίου Χριστοδούλου",
    "zh": "王 李 张 刘 陈 杨 黄 赵 吴 周 徐 孙 马 朱 胡 郭 何 高 林 罗",
    "ja": "佐藤 鈴木 高橋 田中 伊藤 渡辺 山本 中村 小林 加藤 吉田 山田 佐々木 山口 "
    "松本 井上 木村 林",
}
#: Streets: (long form, abbreviation) of the street type, and street names.
_STREET_TYPES = {
    "en": [("Street", "St"), ("Avenue", "Ave"), ("Road", "Rd"), ("Boulevard", "Blvd"),
           ("Drive", "Dr"), ("Lane", "Ln")],
    "de": [("straße", "str."), ("weg", "weg"), ("allee", "allee"), ("platz", "pl.")],
    "fr": [("rue", "r."), ("avenue", "av."), ("boulevard", "bd"), ("place", "pl.")],
    "es": [("Calle", "C/"), ("Avenida", "Avda."), ("Paseo", "Pº"), ("Plaza", "Pza.")],
    "ru": [("улица", "ул."), ("проспект", "пр-т"), ("переулок", "пер."), ("бульвар", "б-р")],
    "el": [("Οδός", "Οδ."), ("Λεωφόρος", "Λεωφ."), ("Πλατεία", "Πλ.")],
}  # fmt: skip
_STREET_NAMES = {
    "en": "Main Oak Maple Cedar Elm Washington Lake Hill Park Sunset Highland Ventura "
    "Franklin Jefferson Madison Lincoln Church Mill Pine Spring",
    "de": "Haupt Bahnhof Goethe Schiller Königs Mühlen Linden Kirch Garten Brunnen Rosen "
    "Schloss Wald Berg Tal Höhen Sonnen",
    "fr": "de la Paix|Victor Hugo|Saint-Germain|de la République|des Lilas|du Général Leclerc|"
    "Émile Zola|des Écoles|Jean Jaurès|de l'Église|Pasteur|de Bretagne|du Château",
    "es": "Mayor|de Alcalá|Gran Vía|de la Constitución|del Sol|de Cervantes|San Martín|"
    "de Andalucía|Real|de la Reina|del Príncipe",
    "ru": "Ленина|Пушкина|Гагарина|Мира|Советская|Садовая|Лесная|Школьная|Набережная|Тверская",
    "el": "Ερμού|Σταδίου|Πανεπιστημίου|Αθηνάς|Ακαδημίας|Βασιλίσσης Σοφίας|Πατησίων|Αιόλου",
}
_CITIES = {
    "en": "New York|Los Angeles|Chicago|Houston|Phoenix|Philadelphia|San Antonio|San Diego|"
    "Dallas|Austin|Boston|Seattle|Denver|Portland",
    "de": "München|Köln|Düsseldorf|Nürnberg|Würzburg|Lübeck|Göttingen|Saarbrücken|Berlin|"
    "Hamburg|Frankfurt am Main|Osnabrück",
    "fr": "Paris|Besançon|Orléans|Nîmes|Évry|Béziers|Périgueux|Lyon|Marseille|Saint-Étienne|"
    "Angoulême|Créteil",
    "es": "Málaga|Córdoba|León|Cádiz|Ávila|Logroño|Madrid|Barcelona|Sevilla|Valencia|Almería",
    "ru": "Москва|Санкт-Петербург|Новосибирск|Екатеринбург|Казань|Нижний Новгород|Самара|Омск",
    "el": "Αθήνα|Θεσσαλονίκη|Πάτρα|Ηράκλειο|Λάρισα|Βόλος|Ιωάννινα|Χανιά",
}
#: CJK addresses: (prefecture/city, districts, streets).
_CJK = {
    "zh": (["北京市", "上海市", "广州市", "深圳市", "杭州市", "成都市"],
           ["朝阳区", "海淀区", "浦东新区", "天河区", "福田区", "西湖区", "武侯区", "东城区"],
           ["建国路", "人民路", "中山路", "解放路", "长安街", "南京路", "和平路", "文化路"]),
    "ja": (["東京都", "大阪府", "京都府", "北海道", "神奈川県", "愛知県"],
           ["新宿区", "渋谷区", "港区", "中央区", "北区", "左京区", "中区", "西区"],
           ["西新宿", "道玄坂", "六本木", "銀座", "梅田", "栄", "大通西", "本町"]),
}  # fmt: skip
_BUSINESS = {
    "en": ["{s}'s Diner", "{s} & Sons Hardware", "{s} Coffee Company", "Starbucks Coffee",
           "{s} Dental Clinic", "The {c} Bakery", "{s} Incorporated", "{s} Law Firm Limited"],
    "de": ["Café {s}", "Bäckerei {s}", "{s} GmbH", "Metzgerei {s}", "Gasthaus zum Löwen",
           "Blumenhaus {s}", "{s} & Söhne KG", "Apotheke am Markt"],
    "fr": ["Boulangerie {s}", "Café de la Gare", "Pâtisserie {s}", "Hôtel du Château",
           "Brasserie {s}", "Société {s} et Fils", "Crêperie {s}", "Librairie {s}"],
    "es": ["Panadería {s}", "Cafetería {s}", "Farmacia {s}", "Restaurante El Rincón",
           "Peluquería {s}", "Ferretería {s} S.A.", "Bodega {s}"],
    "ru": ["Ресторан «Пушкин»", "Кафе «{s}»", "Аптека №{n}", "Магазин «Продукты»",
           "ООО «{s}»", "Пекарня «{s}»", "Салон красоты «Ольга»"],
    "el": ["Ταβέρνα {s}", "Φαρμακείο {s}", "Καφέ Ωραία Ελένη", "Φούρνος {s}", "Ζαχαροπλαστείο {s}"],
    "zh": ["{s}记餐厅", "星巴克咖啡", "{s}氏药房", "{c}大酒店", "{s}家面馆", "新华书店"],
    "ja": ["スターバックス コーヒー", "{s}商店", "{s}歯科医院", "ラーメン{s}", "{c}ホテル",
           "{s}書店"],
}  # fmt: skip
#: Long and short forms that a duplicate may use instead of each other.
_ABBREVIATIONS = {
    "en": [("Company", "Co."), ("Incorporated", "Inc."), ("Limited", "Ltd"), ("& Sons", "and Sons"),
           ("Dental", "Dent."), ("New York", "NYC"), ("Saint", "St.")],
    "de": [("GmbH", "G.m.b.H."), ("& Söhne", "und Söhne"), ("Frankfurt am Main", "Frankfurt a.M."),
           ("Gasthaus", "Gasth."), ("zum", "z.")],
    "fr": [("Société", "Sté"), ("et Fils", "& Fils"), ("Saint-", "St-"), ("Général", "Gal")],
    "es": [("S.A.", "SA"), ("Restaurante", "Rest."), ("San ", "S. ")],
    "ru": [("Ресторан", "Рест."), ("ООО", "О.О.О."), ("Санкт-Петербург", "СПб")],
    "el": [("Φαρμακείο", "Φαρμ."), ("Θεσσαλονίκη", "Θεσ/νίκη")],
    "zh": [("北京市", "北京"), ("上海市", "上海"), ("餐厅", "饭店"), ("咖啡", "咖啡店")],
    "ja": [("東京都", "東京"), ("大阪府", "大阪"), ("コーヒー", "珈琲"), ("歯科医院", "歯科")],
}  # fmt: skip
_ALPHABET = {
    "ru": "абвгдежзийклмнопрстуфхцчшщыэюя",
    "el": "αβγδεζηθικλμνξοπρστυφχψω",
    "zh": "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年",
    "ja": "あいうえおかきくけこさしすせそたちつてとなにぬねのまみむめもやゆよらりるれろわん",
}
_LATIN = "abcdefghijklmnopqrstuvwxyz"


@dataclass
class Entity:
    """One real-world person or business: its canonical field values."""

    key: str
    locale: str
    kind: str  # "person" or "business"
    fields: dict[str, str]
    given: str = ""
    surname: str = ""


@dataclass
class Generated:
    """The records (id, text, fields) and each record's entity."""

    records: list[tuple[str, str, dict[str, str]]]
    labels: dict[str, str]
    locales: dict[str, str] = field(default_factory=dict)


def _split(words: str) -> list[str]:
    return words.split("|") if "|" in words else words.split()


def _phone(rng: random.Random, locale: str) -> str:
    d = "".join(str(rng.randrange(10)) for _ in range(10))
    return {
        "en": f"({d[:3]}) {d[3:6]}-{d[6:]}",
        "de": f"+49 {d[:3]} {d[3:]}",
        "fr": f"0{d[1]} {d[2:4]} {d[4:6]} {d[6:8]} {d[8:]}",
        "es": f"+34 {d[:3]} {d[3:6]} {d[6:9]}",
        "ru": f"+7 ({d[:3]}) {d[3:6]}-{d[6:8]}-{d[8:]}",
        "el": f"210 {d[:3]} {d[3:7]}",
        "zh": f"010-{d[:4]}-{d[4:8]}",
        "ja": f"03-{d[:4]}-{d[4:8]}",
    }[locale]


#: How each locale writes a street address, and the range and form of its postcodes.
_ADDRESS_FORMS: dict[str, tuple[str, int, int, Callable[[int], str]]] = {
    "en": ("{n} {name} {type}", 10000, 99999, str),
    "de": ("{name}{type} {n}", 10000, 99999, str),
    "fr": ("{n} {type} {name}", 10000, 95999, str),
    "es": ("{type} {name} {n}", 1000, 52999, "{:05d}".format),
    "ru": ("{type} {name}, д. {n}", 100000, 699999, str),
    "el": ("{type} {name} {n}", 10000, 89999, lambda p: f"{p // 100} {p % 100:02d}"),
}


def _address(rng: random.Random, locale: str) -> tuple[str, str, str]:
    """(street address, postcode, city) in the locale's own order and script."""
    number = rng.randint(1, 250)
    if locale in _CJK:
        cities, districts, streets = _CJK[locale]
        city = rng.choice(cities)
        if locale == "zh":
            addr = f"{city}{rng.choice(districts)}{rng.choice(streets)}{number}号"
        else:
            addr = (
                f"{city}{rng.choice(districts)}{rng.choice(streets)}"
                f"{rng.randint(1, 9)}丁目{rng.randint(1, 30)}番{rng.randint(1, 20)}号"
            )
        postcode = (
            f"{rng.randint(100, 999)}{rng.randint(0, 999):03d}"
            if locale == "zh"
            else f"{rng.randint(100, 999)}-{rng.randint(0, 9999):04d}"
        )
        return addr, postcode, city
    name = rng.choice(_split(_STREET_NAMES[locale]))
    long_type, _ = rng.choice(_STREET_TYPES[locale])
    city = rng.choice(_split(_CITIES[locale]))
    form, low, high, write = _ADDRESS_FORMS[locale]
    postcode = write(rng.randint(low, high))
    return form.format(n=number, name=name, type=long_type), postcode, city


def _dob(rng: random.Random, locale: str) -> str:
    y, m, d = rng.randint(1930, 2005), rng.randint(1, 12), rng.randint(1, 28)
    if locale == "en":
        return f"{m:02d}/{d:02d}/{y}"
    if locale in ("zh", "ja"):
        return f"{y}年{m}月{d}日"
    return f"{d:02d}.{m:02d}.{y}"


def _person(rng: random.Random, key: str, locale: str) -> Entity:
    given = rng.choice(_split(_GIVEN[locale]))
    surname = rng.choice(_split(_SURNAME[locale]))
    if locale == "ru" and given.endswith(("а", "я")) and surname.endswith("ов"):
        surname += "а"  # Петров / Петрова
    name = f"{surname}{given}" if locale in _CJK else f"{given} {surname}"
    addr, postcode, city = _address(rng, locale)
    fields = {
        "name": name, "address": addr, "postcode": postcode, "city": city,
        "phone": _phone(rng, locale), "dob": _dob(rng, locale),
    }  # fmt: skip
    return Entity(key, locale, "person", fields, given, surname)


def _business(rng: random.Random, key: str, locale: str) -> Entity:
    surname = rng.choice(_split(_SURNAME[locale]))
    addr, postcode, city = _address(rng, locale)
    pattern = rng.choice(_BUSINESS[locale])
    name = pattern.format(s=surname, c=city.rstrip("市都府県"), n=rng.randint(1, 99))
    fields = {
        "name": name, "address": addr, "postcode": postcode, "city": city,
        "phone": _phone(rng, locale), "dob": "",
    }  # fmt: skip
    return Entity(key, locale, "business", fields, "", surname)


def _relative(rng: random.Random, key: str, of: Entity) -> Entity:
    """Same surname, address and phone, another given name and birth date: a hard negative."""
    given = of.given
    while given == of.given:
        given = rng.choice(_split(_GIVEN[of.locale]))
    fields = dict(of.fields)
    cjk = of.locale in _CJK
    fields["name"] = f"{of.surname}{given}" if cjk else f"{given} {of.surname}"
    fields["dob"] = _dob(rng, of.locale)
    return Entity(key, of.locale, "person", fields, given, of.surname)


def _neighbour(rng: random.Random, key: str, of: Entity) -> Entity:
    """Another business at the same address: a hard negative."""
    other = _business(rng, key, of.locale)
    for f in ("address", "postcode", "city"):
        other.fields[f] = of.fields[f]
    return other


# -- perturbations ---------------------------------------------------------------------------


def strip_accents(text: str) -> str:
    """Café Müller -> Cafe Muller (combining marks dropped after canonical decomposition)."""
    decomposed = unicodedata.normalize("NFD", text)
    return unicodedata.normalize(
        "NFC", "".join(c for c in decomposed if not unicodedata.combining(c))
    )


def german_transliteration(text: str) -> str:
    """Müller -> Mueller, Straße -> Strasse: how German is written without umlauts."""
    table = {"ä": "ae", "ö": "oe", "ü": "ue", "Ä": "Ae", "Ö": "Oe", "Ü": "Ue", "ß": "ss"}
    return "".join(table.get(c, c) for c in text)


def fullwidth(text: str) -> str:
    """ASCII letters and digits as their full-width forms: Starbucks -> Ｓｔａｒｂｕｃｋｓ."""
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in text)


def greek_capitals(text: str) -> str:
    """Greek in capitals, which are written without the tonos: Αθήνα -> ΑΘΗΝΑ."""
    return strip_accents(text).upper()


def _typo(rng: random.Random, value: str, locale: str) -> str:
    words = value.split(" ")
    cands = [i for i, w in enumerate(words) if len(w) >= (2 if locale in _CJK else 4)]
    if not cands:
        return value
    i = rng.choice(cands)
    w = list(words[i])
    pos = rng.randrange(len(w))
    alphabet = _ALPHABET.get(locale, _LATIN)
    op = rng.randrange(4)
    if op == 0:  # substitution
        c = rng.choice(alphabet)
        w[pos] = c.upper() if w[pos].isupper() else c
    elif op == 1 and len(w) > 3:  # deletion
        del w[pos]
    elif op == 2:  # insertion (a doubled letter, the most common insertion)
        w.insert(pos, w[pos])
    elif pos + 1 < len(w):  # transposition
        w[pos], w[pos + 1] = w[pos + 1], w[pos]
    words[i] = "".join(w)
    return " ".join(words)


def _abbreviate(rng: random.Random, e: Entity, f: dict[str, str]) -> bool:
    options: list[tuple[str, str, str]] = []
    for name in ("name", "address", "city"):
        for long, short in _ABBREVIATIONS.get(e.locale, []):
            if long in f[name]:
                options.append((name, long, short))
        for long, short in _STREET_TYPES.get(e.locale, []):
            if long in f[name] and long != short:
                options.append((name, long, short))
    if e.kind == "person" and e.given and e.locale not in _CJK and e.given in f["name"]:
        options.append(("name", e.given, e.given[0] + "."))
    if not options:
        return False
    name, long, short = rng.choice(options)
    f[name] = f[name].replace(long, short, 1)
    return True


def _perturb(rng: random.Random, e: Entity, f: dict[str, str], order: list[str]) -> None:
    """One change, chosen among those that make sense for the entity's locale."""
    loc = e.locale
    kinds = ["typo", "typo", "abbrev", "swap", "missing", "case", "phone"]
    if loc in ("de", "fr", "es"):
        kinds += ["accents", "accents"]
    if loc == "de":
        kinds += ["german", "german"]
    if loc == "el":
        kinds += ["greek", "greek"]
    if loc in ("zh", "ja"):
        kinds += ["fullwidth", "spacing", "spacing"]
    if e.kind == "business" and loc in ("en", "de", "fr"):
        kinds += ["fullwidth"]
    kind = rng.choice(kinds)
    if kind == "typo":
        name = rng.choice([n for n in ("name", "name", "address", "city") if f[n]])
        f[name] = _typo(rng, f[name], loc)
    elif kind == "abbrev":
        _abbreviate(rng, e, f)
    elif kind == "swap":
        if e.kind == "person" and loc not in _CJK and f["name"].count(" ") >= 1:
            first, _, rest = f["name"].partition(" ")
            f["name"] = f"{rest} {first}"
        else:
            other = "city" if "city" in order else "name"
            i, j = order.index("address"), order.index(other)
            order[i], order[j] = order[j], order[i]
    elif kind == "missing":
        present = [n for n in ("phone", "postcode", "dob", "city") if f[n]]
        if present:
            f[rng.choice(present)] = ""
    elif kind == "case":
        for n in ("name", "address", "city"):
            f[n] = f[n].upper()
    elif kind == "phone":
        digits = "".join(c for c in f["phone"] if c.isdigit())
        f["phone"] = (
            digits
            if rng.random() < 0.5
            else "-".join(digits[k : k + 3] for k in range(0, len(digits), 3))
        )
    elif kind == "accents":
        for n in FIELDS:
            f[n] = strip_accents(f[n])
    elif kind == "german":
        for n in FIELDS:
            f[n] = german_transliteration(f[n])
    elif kind == "greek":
        for n in ("name", "address", "city"):
            f[n] = greek_capitals(f[n])
    elif kind == "fullwidth":
        for n in FIELDS:
            f[n] = fullwidth(f[n])
    elif kind == "spacing":
        cities, districts, streets = _CJK[loc]
        addr = f["address"]
        for part in cities + districts + streets:
            addr = addr.replace(part, part + " ")
        f["address"] = addr.strip() if rng.random() < 0.7 else addr.replace(" ", "")
        if f["address"] == addr.replace(" ", ""):
            f["name"] = f"{e.surname} {e.given}" if e.given else f["name"]


def _text(f: dict[str, str], order: list[str], locale: str) -> str:
    """The fields joined in ``order``; outside CJK the postcode is written with the city."""
    parts = []
    for name in order:
        value = f[name]
        if name == "city" and locale not in _CJK:
            both = [f["postcode"], value] if locale != "en" else [value, f["postcode"]]
            value = " ".join(v for v in both if v)
        if value:
            parts.append(value)
    return ", ".join(parts)


def generate(entities: int = 1000, seed: int = 2024) -> Generated:
    """``entities`` real-world entities, each as a cluster of 1 to 5 records (see the module
    docstring); record ids are ``"s0"``, ``"s1"``, ... in shuffled order."""
    rng = random.Random(seed)
    locales, weights = list(LOCALES), list(LOCALES.values())
    ents: list[Entity] = []
    for k in range(entities):
        key = f"e{k}"
        r = rng.random()
        if ents and r < 0.12:
            base = rng.choice(ents)
            ents.append(
                _relative(rng, key, base) if base.kind == "person" else _neighbour(rng, key, base)
            )
            continue
        loc = rng.choices(locales, weights)[0]
        ents.append(_person(rng, key, loc) if r < 0.65 else _business(rng, key, loc))
    rows: list[tuple[str, dict[str, str], str, str]] = []
    for e in ents:
        size = rng.choices(range(1, 6), CLUSTER_SIZES)[0]
        for m in range(size):
            f = dict(e.fields)
            order = (
                ["name", "address", "city", "phone", "dob"]
                if e.locale not in _CJK
                else ["name", "postcode", "address", "phone", "dob"]
            )
            if m > 0:
                for _ in range(rng.choice((1, 1, 2, 2, 3))):
                    _perturb(rng, e, f, order)
            rows.append((_text(f, order, e.locale), f, e.key, e.locale))
    rng.shuffle(rows)
    records: list[tuple[str, str, dict[str, str]]] = []
    labels: dict[str, str] = {}
    locs: dict[str, str] = {}
    for i, (text, f, key, loc) in enumerate(rows):
        rid = f"s{i}"
        records.append((rid, text, {n: v for n, v in f.items() if v}))
        labels[rid] = key
        locs[rid] = loc
    return Generated(records, labels, locs)
