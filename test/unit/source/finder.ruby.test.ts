import { behavesLikeSqlFinder } from './behavesLikeSqlFinder';

behavesLikeSqlFinder('ruby');
