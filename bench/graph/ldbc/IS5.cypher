// IS5. Creator of a message (LDBC SNB Interactive v1, short read 5).
// Given a Message, retrieve its author.  A Message is a Comment or a Post; this graph has the two
// labels apart (and their hasCreator as two types), so the query is one branch per label.  Only
// one branch finds the id (Comment and Post ids are disjoint).
// params: {"messageId": 755914247769}
// params: {"messageId": 618475290624}
// params: {"messageId": 32485}
// params: {"messageId": 1030792151044}
MATCH (m:Comment {id: $messageId})-[:Comment_hasCreator]->(p:Person)
RETURN p.id AS personId, p.firstName AS firstName, p.lastName AS lastName
UNION ALL
MATCH (m:Post {id: $messageId})-[:Post_hasCreator]->(p:Person)
RETURN p.id AS personId, p.firstName AS firstName, p.lastName AS lastName
