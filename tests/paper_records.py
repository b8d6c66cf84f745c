"""The DeepRocket paper's Dou Dizhu records that several test files check against."""

# Section 4.2 (spaces after ';', no final ';', the game process wrapped over two lines).
SECTION_4_2 = """\
Cards:4456777889JKKAA2B;335567899TTJJKAA2;4456689TTJQQQK22S;33Q
Game process:0,33; 1,55; 2,66; 0,77; 1,AA; 1,6; 2,T; 0,J; 1,K; 0,2; 2,S; 2,44; 0,KK; 2,22; 2,89TJQK;
2,QQ; 0,AA; 0,56789; 1,789TJ; 1,3; 2,5"""
# Appendix A, table 6: the same record; the table gives the two parts without their labels.
TABLE_6 = """\
Cards: 4456777889JKKAA2B;335567899TTJJKAA2;4456689TTJQQQK22S;33Q;
Game process: 0,33;1,55;2,66;0,77;1,AA;1,6;2,T;0,J;1,K;0,2;2,S;2,44;0,KK;2,22;2,89TJQK;2,QQ;0,AA;0,56789;1,789TJ;1,3;2,5;"""
