// IC13 in Kuzu 0.11's dialect (IC13.cypher has the description and the parameters): a SHORTEST
// recursive relationship needs a lower bound of 1 and an upper bound (at most 30: the knows graph of
// SF0.1 is far shallower), so the same Person is its own case.
MATCH (person1:Person {id: $person1Id}), (person2:Person {id: $person2Id})
OPTIONAL MATCH (person1)-[e:knows* SHORTEST 1..30]-(person2)
RETURN CASE WHEN person1.id = person2.id THEN 0 WHEN e IS NULL THEN -1 ELSE length(e) END AS shortestPathLength
