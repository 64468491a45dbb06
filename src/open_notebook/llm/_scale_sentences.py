"""The sentences an embedder's scale is read on (:mod:`open_notebook.llm._support`).

Written for this purpose, from no data set: twelve mutually unrelated sentences, the twelve
questions they answer, and the same questions in seven other languages. An embedder's cosines
of unrelated texts tell its "nothing in common" level; of each question and its sentence its
"a question and its answer" level; of the translated questions and the English sentences that
answer them, its answer level across languages.
"""

from __future__ import annotations

from typing import Final

NULL_SENTENCES: Final = (
    "The train to the coast leaves every morning at seven.",
    "Add two cups of flour and stir until the dough is smooth.",
    "The committee approved the budget after a long debate.",
    "Whales communicate over long distances with low sounds.",
    "She painted the old fence a bright shade of blue.",
    "The software update fixes a bug in the login screen.",
    "Heavy rain flooded the valley roads overnight.",
    "The museum opens a new exhibition on ancient coins.",
    "He practises the violin for an hour every evening.",
    "Interest rates rose for the third time this year.",
    "The goalkeeper saved a penalty in the final minute.",
    "Tomatoes grow best in warm, sunny soil.",
)
# The i-th is answered by the i-th null sentence.
ANSWER_QUESTIONS: Final = (
    "When does the train to the coast leave?",
    "How much flour goes into the dough?",
    "What did the committee decide about the budget?",
    "How do whales communicate over long distances?",
    "What colour did she paint the fence?",
    "What does the software update fix?",
    "What flooded the valley roads?",
    "What is the museum's new exhibition about?",
    "How long does he practise the violin?",
    "How many times have interest rates risen this year?",
    "When did the goalkeeper save the penalty?",
    "In what soil do tomatoes grow best?",
)
# ANSWER_QUESTIONS in other languages (ISO 639-1, as open_notebook.text names them), in four
# scripts: a model's answer level across languages is their mean, not any one language's.
TRANSLATED_QUESTIONS: Final[dict[str, tuple[str, ...]]] = {
    "de": (
        "Wann fährt der Zug an die Küste ab?",
        "Wie viel Mehl kommt in den Teig?",
        "Was hat der Ausschuss über den Haushalt beschlossen?",
        "Wie verständigen sich Wale über große Entfernungen?",
        "In welcher Farbe hat sie den Zaun gestrichen?",
        "Was behebt das Software-Update?",
        "Was hat die Straßen im Tal überflutet?",
        "Worum geht es in der neuen Ausstellung des Museums?",
        "Wie lange übt er Geige?",
        "Wie oft sind die Zinsen in diesem Jahr gestiegen?",
        "Wann hat der Torwart den Elfmeter gehalten?",
        "In welchem Boden wachsen Tomaten am besten?",
    ),
    "es": (
        "¿Cuándo sale el tren hacia la costa?",
        "¿Cuánta harina lleva la masa?",
        "¿Qué decidió el comité sobre el presupuesto?",
        "¿Cómo se comunican las ballenas a grandes distancias?",
        "¿De qué color pintó ella la valla?",
        "¿Qué corrige la actualización del software?",
        "¿Qué inundó las carreteras del valle?",
        "¿De qué trata la nueva exposición del museo?",
        "¿Cuánto tiempo practica él el violín?",
        "¿Cuántas veces han subido los tipos de interés este año?",
        "¿Cuándo paró el portero el penalti?",
        "¿En qué suelo crecen mejor los tomates?",
    ),
    "fr": (
        "Quand part le train pour la côte ?",
        "Combien de farine met-on dans la pâte ?",
        "Qu'a décidé le comité au sujet du budget ?",
        "Comment les baleines communiquent-elles sur de longues distances ?",
        "De quelle couleur a-t-elle peint la clôture ?",
        "Que corrige la mise à jour du logiciel ?",
        "Qu'est-ce qui a inondé les routes de la vallée ?",
        "Sur quoi porte la nouvelle exposition du musée ?",
        "Combien de temps s'exerce-t-il au violon ?",
        "Combien de fois les taux d'intérêt ont-ils augmenté cette année ?",
        "Quand le gardien a-t-il arrêté le penalty ?",
        "Dans quel sol les tomates poussent-elles le mieux ?",
    ),
    "it": (
        "Quando parte il treno per la costa?",
        "Quanta farina va nell'impasto?",
        "Che cosa ha deciso il comitato sul bilancio?",
        "Come comunicano le balene a grandi distanze?",
        "Di che colore ha dipinto la recinzione?",
        "Che cosa corregge l'aggiornamento del software?",
        "Che cosa ha allagato le strade della valle?",
        "Di che cosa tratta la nuova mostra del museo?",
        "Per quanto tempo si esercita al violino?",
        "Quante volte sono saliti i tassi di interesse quest'anno?",
        "Quando ha parato il rigore il portiere?",
        "In quale terreno crescono meglio i pomodori?",
    ),
    "pt": (
        "Quando sai o trem para o litoral?",
        "Quanta farinha vai na massa?",
        "O que o comitê decidiu sobre o orçamento?",
        "Como as baleias se comunicam a longas distâncias?",
        "De que cor ela pintou a cerca?",
        "O que a atualização do software corrige?",
        "O que inundou as estradas do vale?",
        "Sobre o que é a nova exposição do museu?",
        "Quanto tempo ele pratica violino?",
        "Quantas vezes as taxas de juros subiram este ano?",
        "Quando o goleiro defendeu o pênalti?",
        "Em que solo os tomates crescem melhor?",
    ),
    "ru": (
        "Когда отправляется поезд к побережью?",
        "Сколько муки идёт в тесто?",
        "Что комитет решил насчёт бюджета?",
        "Как киты общаются на больших расстояниях?",
        "В какой цвет она покрасила забор?",
        "Что исправляет обновление программы?",
        "Что затопило дороги в долине?",
        "О чём новая выставка музея?",
        "Сколько времени он занимается на скрипке?",
        "Сколько раз в этом году повышались процентные ставки?",
        "Когда вратарь отбил пенальти?",
        "В какой почве лучше всего растут помидоры?",
    ),
    "zh": (
        "去海边的火车什么时候出发？",
        "面团里放多少面粉？",
        "委员会对预算做了什么决定？",
        "鲸鱼如何进行远距离交流？",
        "她把栅栏漆成了什么颜色？",
        "这次软件更新修复了什么？",
        "是什么淹没了山谷里的道路？",
        "博物馆的新展览是关于什么的？",
        "他练习小提琴多长时间？",
        "今年利率上调了几次？",
        "守门员什么时候扑出了点球？",
        "西红柿在什么样的土壤里长得最好？",
    ),
}
